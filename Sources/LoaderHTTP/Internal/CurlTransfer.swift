import CCurl
import CCurlShim
import Foundation
import PipelineCore
import Synchronization

/// What a transfer was asked to do, fixed when it is created (by the first caller, SDWebImage's
/// rule for coalesced downloads; decryptors and progress stay per caller).
struct TransferSettings: Sendable {
    var request: HTTPLoadRequest
    var options: ImageOptions
    var configuration: HTTPLoaderConfiguration
    var credentials: HTTPCredentials?
    var responseModifier: HTTPResponseModifier?
    /// Whether the request carries `If-None-Match` / `If-Modified-Since`, so a 304 means "not modified".
    var isRevalidation: Bool
    var priority: ImageLoadPriority
    var order: HTTPExecutionOrder
}

/// One download shared by every caller waiting for the same request.
///
/// Two kinds of state: the waiter list behind `waiters` (any thread), and the transfer's
/// progress — buffer, headers, response — touched only by the loader thread, which is the only
/// thread that runs libcurl and its callbacks; those fields are `nonisolated(unsafe)` for that reason.
final class CurlTransfer: @unchecked Sendable {
    let settings: TransferSettings
    private let validators: ValidatorStore
    private let onFinished: @Sendable (CurlTransfer) -> Void
    /// Where `detach` sends the cancel; weak because the multi handle's thread owns transfers.
    private weak let multi: CurlMulti?

    private struct Waiters {
        var list: [ObjectIdentifier: TransferWaiter] = [:]
        var finished = false
    }
    private let waiters = Mutex(Waiters())

    // Loader thread only.
    /// The easy handle and its header list while an attempt runs.
    nonisolated(unsafe) var easy: UnsafeMutableRawPointer?
    nonisolated(unsafe) var headerList: UnsafeMutablePointer<curl_slist>?
    nonisolated(unsafe) var attempt = 0
    nonisolated(unsafe) var body = Data()
    nonisolated(unsafe) private var headerLines: [(String, String)] = []
    nonisolated(unsafe) private var response: HTTPLoadResponse?
    nonisolated(unsafe) private var expectedBytes: Int64?
    /// Why a callback stopped the transfer; replaces libcurl's generic write/abort error.
    nonisolated(unsafe) var abortError: ImagePipeError?
    /// The SSRF guard's refusal of an address libcurl wanted to connect to; replaces libcurl's
    /// "couldn't connect" (other addresses of the host may still have been tried).
    nonisolated(unsafe) var addressRefusal: ImagePipeError?
    /// Addresses the SSRF guard let a socket be opened to in this attempt: a request on a
    /// connection to one of them needs no second judgement (nor a second `getifaddrs`).
    nonisolated(unsafe) var admittedAddresses: Set<IPAddress> = []
    /// Whether a status line has arrived for the response being read (its headers are coming).
    nonisolated(unsafe) private var sawStatusLine = false

    /// The SSRF guard, when the configuration turns it on.
    let addressGuard: AddressGuard?
    /// libcurl's message for the last failure (`CURLOPT_ERRORBUFFER`): more than its result code
    /// says. Set on the easy handle for each attempt; `curl_easy_reset` unsets it before release.
    let errorBuffer: UnsafeMutablePointer<CChar>

    init(settings: TransferSettings, validators: ValidatorStore, multi: CurlMulti,
         onFinished: @escaping @Sendable (CurlTransfer) -> Void) {
        self.settings = settings
        self.validators = validators
        self.multi = multi
        self.onFinished = onFinished
        let config = settings.configuration
        addressGuard = config.blocksPrivateAddresses
            ? AddressGuard(allowed: config.allowedAddresses, blocksOwnInterfaceAddresses: config.blocksOwnInterfaceAddresses)
            : nil
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit { errorBuffer.deallocate() }

    // MARK: Callers

    /// False once the transfer has finished or been cancelled: the caller starts a new one.
    func add(_ waiter: TransferWaiter) -> Bool {
        waiters.withLock { state in
            guard !state.finished else { return false }
            state.list[ObjectIdentifier(waiter)] = waiter
            return true
        }
    }

    /// The last caller leaving cancels the download.
    func detach(_ waiter: TransferWaiter) {
        let cancelTransfer: Bool = waiters.withLock { state in
            state.list[ObjectIdentifier(waiter)] = nil
            guard state.list.isEmpty, !state.finished else { return false }
            state.finished = true
            return true
        }
        guard cancelTransfer else { return }
        onFinished(self)
        multi?.cancel(self)
    }

    var waiterCount: Int { waiters.withLock { $0.list.count } }

    var hasWaiters: Bool { waiters.withLock { !$0.list.isEmpty && !$0.finished } }

    /// Completes every caller; nothing after this reaches them.
    func deliver(_ outcome: TransferWaiter.Outcome) {
        let list: [TransferWaiter] = waiters.withLock { state in
            state.finished = true
            defer { state.list = [:] }
            return Array(state.list.values)
        }
        onFinished(self)
        if case .success(let result) = outcome, let response = result.httpResponse {
            validators.remember(response)
        }
        for waiter in list { waiter.complete(outcome) }
    }

    // MARK: Loader thread: libcurl callbacks

    func resetForAttempt() {
        body = Data()
        headerLines = []
        response = nil
        expectedBytes = nil
        abortError = nil
        addressRefusal = nil
        admittedAddresses = []
        sawStatusLine = false
        errorBuffer[0] = 0
    }

    func receiveHeader(_ line: String) {
        if line.hasPrefix("HTTP/") {
            // A new response in a redirect chain (or after a 100 Continue): its headers replace the last's.
            headerLines = []
            sawStatusLine = true
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headerLines.append((name, value))
    }

    /// False stops the transfer (libcurl then reports a write error; `abortError` says why).
    func receiveBody(_ bytes: UnsafeRawBufferPointer, easy: UnsafeMutableRawPointer) -> Bool {
        if response == nil {
            if let error = validateResponse(easy: easy) {
                abortError = error
                return false
            }
        }
        let limit = settings.configuration.maxResponseBytes
        guard Int64(body.count) + Int64(bytes.count) <= limit else {
            abortError = .limitExceeded(.responseBytes, value: Int(clamping: Int64(body.count) + Int64(bytes.count)), maximum: Int(clamping: limit))
            return false
        }
        body.append(contentsOf: bytes)
        let received = Int64(body.count)
        let list = waiters.withLock { Array($0.list.values) }
        let partial = list.contains { $0.wantsPartialData } ? body : nil
        for waiter in list {
            waiter.report(received: received, expected: expectedBytes.map { max($0, received) }, partialData: partial)
        }
        return true
    }

    /// Builds the response, lets the response modifier change or refuse it, then checks it against
    /// the configuration; an error here aborts the transfer before the body is read.
    func validateResponse(easy: UnsafeMutableRawPointer) -> ImagePipeError? {
        var status = 0
        ip_easy_getinfo_long(easy, Int32(CURLINFO_RESPONSE_CODE.rawValue), &status)
        var effective: UnsafePointer<CChar>?
        ip_easy_getinfo_string(easy, Int32(CURLINFO_EFFECTIVE_URL.rawValue), &effective)
        let url = effective.flatMap { URL(string: String(cString: $0)) } ?? settings.request.url
        var headers: [String: String] = [:]
        for (name, value) in headerLines {
            if let existing = headers[name] { headers[name] = existing + ", " + value } else { headers[name] = value }
        }
        var answer = HTTPLoadResponse(url: url, statusCode: status, headers: headers)
        if let modifier = settings.responseModifier {
            guard let modified = modifier.modify(answer) else {
                return .invalidResponse(reason: "the response modifier refused the response")
            }
            answer = modified
        }
        response = answer
        if answer.statusCode == 304 && settings.isRevalidation { return .cacheNotModified }
        if let codes = settings.configuration.acceptableStatusCodes, !codes.contains(answer.statusCode) {
            return .badStatusCode(answer.statusCode)
        }
        if let types = settings.configuration.acceptableContentTypes, let type = answer.mimeType, !types.contains(type) {
            return .badContentType(type)
        }
        let limit = settings.configuration.maxResponseBytes
        if let length = answer.expectedContentLength, length > limit {
            return .limitExceeded(.responseBytes, value: Int(clamping: length), maximum: Int(clamping: limit))
        }
        // With Content-Encoding the announced length counts compressed bytes, not the ones we see.
        expectedBytes = answer.header("Content-Encoding") == nil ? answer.expectedContentLength : nil
        // One allocation for the whole body when its size is announced (already checked against the limit).
        if let expected = expectedBytes, expected > 0 { body.reserveCapacity(Int(expected)) }
        let list = waiters.withLock { Array($0.list.values) }
        for waiter in list { waiter.report(received: 0, expected: expectedBytes, partialData: nil) }
        return nil
    }

    /// The outcome of a finished attempt, given libcurl's result code.
    func outcome(code: CURLcode, easy: UnsafeMutableRawPointer) -> TransferWaiter.Outcome {
        if code != CURLE_OK {
            if let abortError { return .failure(abortError) }
            if let addressRefusal, code == CURLE_COULDNT_CONNECT { return .failure(addressRefusal) }
            // libcurl checks `Content-Length` against the limit once the headers are in, before its
            // own length is set: read it from the headers delivered.
            let length = headerLines.last { $0.0.lowercased() == "content-length" }.flatMap { Int64($0.1) }
            let failure = CurlErrors.Failure(
                code: code, detail: String(cString: errorBuffer), url: settings.request.url.absoluteString,
                duringHeaders: sawStatusLine && response == nil, announcedLength: length)
            return .failure(CurlErrors.map(failure, configuration: settings.configuration))
        }
        if response == nil, let error = validateResponse(easy: easy) { return .failure(error) }
        guard !body.isEmpty else { return .failure(.badImageData(reason: "the response body is empty")) }
        return .success(ImageLoadResult(data: body, response: response))
    }

    /// Seconds the server asked us to wait (`Retry-After`, delta-seconds or HTTP-date).
    var retryAfter: Double? {
        guard let value = response?.header("Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }
}
