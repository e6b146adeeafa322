import CCurl
import CCurlShim
import Foundation
import PipelineCore

#if canImport(Glibc)
import Glibc
#endif

// Ownership of the context pointer given to libcurl callbacks (write, header, open-socket, prereq): it is
// `Unmanaged.passUnretained(transfer)`. `CurlMulti.running` holds the transfer strongly from
// `curl_multi_add_handle` until after `curl_multi_remove_handle`, and libcurl calls these callbacks
// only while the easy handle is in the multi handle, on the loader thread — so the pointer is valid
// for every call and no callback retains or releases it.

private let writeCallback: ip_data_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let easy = transfer.easy else { return 0 }
    switch transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length), easy: easy) {
    case .taken: return length
    case .paused: return ip_curl_write_pause
    case .refused: return 0
    }
}

private let headerCallback: ip_data_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: length), as: UTF8.self)
    guard let easy = transfer.easy else { return 0 }
    return transfer.receiveHeader(line, easy: easy) ? length : 0
}

/// The SSRF guard's gate: libcurl calls it with each resolved address it is about to connect to
/// (every address of a host it tries, every redirect hop), and a refused one gets no socket, so
/// not a single packet goes to it. Otherwise it opens the socket as libcurl would, close-on-exec.
private let openSocketCallback: ip_opensocket_callback = { context, _, address in
    guard let context, let address else { return -1 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let request = address.load(as: curl_sockaddr.self)
    // libcurl's `curl_sockaddr` ends in storage large enough for `addrlen` bytes of address.
    let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
    guard let addressGuard = transfer.addressGuard,
        let target = IPAddress.socketAddress(UnsafeRawPointer(address) + offset, length: Int(request.addrlen))
    else { return -1 }  // CURL_SOCKET_BAD: refuse what cannot be judged.
    if let category = addressGuard.refusal(for: target.address) {
        if transfer.addressRefusal == nil {
            transfer.addressRefusal = AddressGuard.error(address: target.address, port: Int(target.port), category: category)
        }
        return -1
    }
    transfer.admittedAddresses.insert(target.address)
    return socket(request.family, request.socktype | Int32(SOCK_CLOEXEC.rawValue), request.protocol)
}

/// Runs before each request is sent, on a new connection or a reused one: a connection kept from
/// a transfer made under another configuration (the guard off, other exceptions) is judged again.
/// One this attempt opened was judged by `openSocketCallback` already.
private let prereqCallback: ip_prereq_callback = { context, primaryIP, _, primaryPort, _ in
    guard let context, let primaryIP else { return 1 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    guard let addressGuard = transfer.addressGuard else { return 0 }
    let text = String(cString: primaryIP)
    guard let address = IPAddress(text) else {
        transfer.abortError = .transport(kind: .blockedAddress, message: "the SSRF guard cannot judge the address '\(text)'")
        return 1
    }
    if transfer.admittedAddresses.contains(address) { return 0 }  // CURL_PREREQFUNC_OK
    guard let category = addressGuard.refusal(for: address) else { return 0 }
    transfer.abortError = AddressGuard.error(address: address, port: Int(primaryPort), category: category)
    return 1  // CURL_PREREQFUNC_ABORT
}

/// Sets one easy handle up for a transfer's request. Returns the header list, which the caller
/// frees with `curl_slist_free_all` after the handle leaves the multi handle.
enum CurlEasy {
    static func configure(_ easy: UnsafeMutableRawPointer, for transfer: CurlTransfer, share: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        let settings = transfer.settings
        let config = settings.configuration
        let request = settings.request
        func long(_ option: CURLoption, _ value: Int) { ip_easy_setopt_long(easy, Int32(option.rawValue), value) }
        func string(_ option: CURLoption, _ value: String) {
            // libcurl copies string options (since 7.17), so the temporary C string may go.
            _ = value.withCString { ip_easy_setopt_ptr(easy, Int32(option.rawValue), $0) }
        }
        let context = Unmanaged.passUnretained(transfer).toOpaque()

        string(CURLOPT_URL, request.url.absoluteString)
        string(CURLOPT_PROTOCOLS_STR, "http,https")
        string(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        long(CURLOPT_NOSIGNAL, 1)
        long(CURLOPT_FOLLOWLOCATION, 1)
        long(CURLOPT_MAXREDIRS, config.maxRedirects)
        long(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Every encoding libcurl can decode (gzip, deflate…); a sink gets the bytes as sent.
        if settings.bodySink == nil { string(CURLOPT_ACCEPT_ENCODING, "") }
        let timeout = request.timeout ?? config.effectiveTimeout
        long(CURLOPT_TIMEOUT_MS, Int(timeout * 1000))
        long(CURLOPT_CONNECTTIMEOUT_MS, Int(min(config.connectTimeout, timeout) * 1000))
        if config.lowSpeedLimit > 0 && config.lowSpeedTime > 0 {
            long(CURLOPT_LOW_SPEED_LIMIT, config.lowSpeedLimit)
            long(CURLOPT_LOW_SPEED_TIME, max(1, Int(config.lowSpeedTime.rounded(.up))))
        }
        ip_easy_setopt_off(easy, Int32(CURLOPT_MAXFILESIZE_LARGE.rawValue), config.maxResponseBytes)
        // Bigger reads than the 16 KiB default: fewer write callbacks and appends per image (the
        // curl tool uses 100 KiB for the same reason).
        long(CURLOPT_BUFFERSIZE, 256 * 1024)

        ip_easy_setopt_data_callback(easy, Int32(CURLOPT_WRITEFUNCTION.rawValue), writeCallback)
        ip_easy_setopt_ptr(easy, Int32(CURLOPT_WRITEDATA.rawValue), context)
        ip_easy_setopt_data_callback(easy, Int32(CURLOPT_HEADERFUNCTION.rawValue), headerCallback)
        ip_easy_setopt_ptr(easy, Int32(CURLOPT_HEADERDATA.rawValue), context)
        ip_easy_setopt_ptr(easy, Int32(CURLOPT_ERRORBUFFER.rawValue), transfer.errorBuffer)
        if transfer.addressGuard != nil {
            ip_easy_setopt_opensocket_callback(easy, openSocketCallback)
            ip_easy_setopt_ptr(easy, Int32(CURLOPT_OPENSOCKETDATA.rawValue), context)
            ip_easy_setopt_prereq_callback(easy, prereqCallback)
            ip_easy_setopt_ptr(easy, Int32(CURLOPT_PREREQDATA.rawValue), context)
        }

        if settings.options.contains(.allowInvalidSSLCertificates) {
            long(CURLOPT_SSL_VERIFYPEER, 0)
            long(CURLOPT_SSL_VERIFYHOST, 0)
        } else if let bundle = config.caBundlePath {
            string(CURLOPT_CAINFO, bundle)
        }
        if let credentials = settings.credentials {
            string(CURLOPT_USERNAME, credentials.user)
            string(CURLOPT_PASSWORD, credentials.password)
            long(CURLOPT_HTTPAUTH, 1)  // CURLAUTH_BASIC
        }
        if settings.options.contains(.handleCookies), let share {
            // The share handle keeps one cookie jar for every transfer that asks for cookies;
            // the empty file name switches the engine on without reading a file.
            ip_easy_setopt_ptr(easy, Int32(CURLOPT_SHARE.rawValue), share)
            string(CURLOPT_COOKIEFILE, "")
        } else {
            // `curl_easy_reset` keeps a pooled handle's share, and with it the cookie jar.
            ip_easy_setopt_ptr(easy, Int32(CURLOPT_SHARE.rawValue), nil)
        }

        switch request.method.uppercased() {
        case "GET": break
        case "HEAD": long(CURLOPT_NOBODY, 1)
        default: string(CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let body = request.body {
            ip_easy_setopt_off(easy, Int32(CURLOPT_POSTFIELDSIZE_LARGE.rawValue), Int64(body.count))
            _ = body.withUnsafeBytes { ip_easy_setopt_ptr(easy, Int32(CURLOPT_COPYPOSTFIELDS.rawValue), $0.baseAddress) }
        }
        var list: UnsafeMutableRawPointer?
        for (name, value) in request.headers {
            // "Name:" with nothing after it would tell libcurl to remove the header instead.
            let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
            list = ip_curl_slist_append(list, line)
        }
        if let list { ip_easy_setopt_ptr(easy, Int32(CURLOPT_HTTPHEADER.rawValue), list) }
        return list
    }
}
