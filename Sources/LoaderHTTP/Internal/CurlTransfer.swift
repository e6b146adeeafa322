import CCurl
import CCurlShim
import Foundation
import PipelineCore
import Synchronization

/// One download, shared through the loader's `Coalescer` by every caller of the same request: it
/// reports progress once for all of them and delivers one outcome, which the coalescer hands to each.
///
/// Two kinds of state: the completion behind `completion` (any thread), and the transfer's
/// progress — buffer, headers, response — touched only by the loader thread, which is the only
/// thread that runs libcurl and its callbacks; those fields are `nonisolated(unsafe)` for that reason.
final class CurlTransfer: @unchecked Sendable {
    typealias Outcome = Result<ImageLoadResult, ImagePipeError>

    let settings: TransferSettings
    private let report: @Sendable (ImageLoadProgress) -> Void
    /// Where `run` submits and `cancel` sends the cancel; weak because the multi handle's thread
    /// owns transfers.
    private weak let multi: CurlMulti?

    private struct Completion {
        var continuation: CheckedContinuation<Outcome, Never>?
        var cancelled = false
    }
    private let completion = Mutex(Completion())

    // Loader thread only.
    /// The easy handle and its header list while an attempt runs.
    nonisolated(unsafe) var easy: UnsafeMutableRawPointer?
    nonisolated(unsafe) var headerList: UnsafeMutableRawPointer?
    nonisolated(unsafe) var attempt = 0
    nonisolated(unsafe) var body = Data()
    /// Body bytes received in this attempt: `body`'s, or those passed to the sink.
    nonisolated(unsafe) private(set) var receivedBytes: Int64 = 0
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
    /// Whether the body sink's fullness paused the transfer; `CurlMulti` resumes it.
    nonisolated(unsafe) var isPaused = false
    /// Whether a status line has arrived for the response being read (its headers are coming).
    nonisolated(unsafe) private var sawStatusLine = false
    /// The status of the response whose headers are being read.
    nonisolated(unsafe) private var statusCode = 0

    /// The SSRF guard, when the configuration turns it on.
    let addressGuard: AddressGuard?
    /// libcurl's message for the last failure (`CURLOPT_ERRORBUFFER`): more than its result code
    /// says. Set on the easy handle for each attempt; `curl_easy_reset` unsets it before release.
    let errorBuffer: UnsafeMutablePointer<CChar>

    init(
        settings: TransferSettings, multi: CurlMulti,
        report: @escaping @Sendable (ImageLoadProgress) -> Void
    ) {
        self.settings = settings
        self.multi = multi
        self.report = report
        let config = settings.configuration
        addressGuard =
            config.blocksPrivateAddresses
            ? AddressGuard(allowed: config.allowedAddresses, blocksOwnInterfaceAddresses: config.blocksOwnInterfaceAddresses)
            : nil
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit { errorBuffer.deallocate() }

    // MARK: Running

    /// Submits the transfer and waits for its outcome; cancelling the calling task cancels it.
    func run() async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let submit = completion.withLock { state -> Bool in
                    guard !state.cancelled else { return false }
                    state.continuation = continuation
                    return true
                }
                guard submit, let multi else { return continuation.resume(returning: .failure(.cancelled)) }
                multi.submit(self)
            }
        } onCancel: {
            cancel()
        }
    }

    /// Set before the cancel is sent: the loader thread drops a cancelled transfer it has not
    /// started yet, and never retries one, whichever of the add and the cancel it sees first.
    var isCancelled: Bool { completion.withLock { $0.cancelled } }

    private func cancel() {
        let submitted = completion.withLock { state -> Bool in
            state.cancelled = true
            return state.continuation != nil
        }
        if submitted { multi?.cancel(self) }
    }

    /// Completes the transfer; called once, by the loader thread (or by `submit` when the loader is gone).
    func deliver(_ outcome: Outcome) {
        let continuation = completion.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }

    // MARK: Loader thread: libcurl callbacks

    func resetForAttempt() {
        body = Data()
        receivedBytes = 0
        headerLines = []
        response = nil
        expectedBytes = nil
        abortError = nil
        addressRefusal = nil
        admittedAddresses = []
        sawStatusLine = false
        statusCode = 0
        isPaused = false
        errorBuffer[0] = 0
    }

    /// False stops the transfer (libcurl then reports a write error; `abortError` says why).
    func receiveHeader(_ line: String, easy: UnsafeMutableRawPointer) -> Bool {
        if line.hasPrefix("HTTP/") {
            // A new response in a redirect chain (or after a 100 Continue): its headers replace the last's.
            headerLines = []
            sawStatusLine = true
            statusCode = line.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headerLines.append((name, value))
        if (300..<400).contains(statusCode), name.caseInsensitiveCompare("Location") == .orderedSame,
            let policy = settings.configuration.redirectPolicy, let refusal = redirectRefusal(to: value, easy: easy, policy: policy)
        {
            abortError = refusal
            return false
        }
        return true
    }

    /// Why the redirect to `location` may not be followed, or nil. Judged here, while libcurl reads
    /// the redirect's headers, so a refused target is never connected to.
    private func redirectRefusal(to location: String, easy: UnsafeMutableRawPointer, policy: @Sendable (URL) -> Bool) -> ImagePipeError? {
        var effective: UnsafePointer<CChar>?
        ip_easy_getinfo_string(easy, Int32(CURLINFO_EFFECTIVE_URL.rawValue), &effective)
        let base = effective.flatMap { URL(string: String(cString: $0)) } ?? settings.request.url
        guard let target = URL(string: location, relativeTo: base)?.absoluteURL else {
            return .transport(kind: .redirectRefused, message: "the redirect's Location cannot be read")
        }
        return policy(target) ? nil : .transport(kind: .redirectRefused, message: "the redirect target is not allowed")
    }

    /// What became of a run of body bytes.
    enum BodyReception {
        case taken
        /// Not taken: the body sink is full, the transfer pauses and libcurl hands the same bytes
        /// over again when `CurlMulti` resumes it.
        case paused
        /// The transfer stops (libcurl then reports a write error; `abortError` says why).
        case refused
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer, easy: UnsafeMutableRawPointer) -> BodyReception {
        if response == nil {
            if let error = validateResponse(easy: easy) {
                abortError = error
                return .refused
            }
        }
        if let sink = settings.bodySink, sink.isFull() {
            isPaused = true
            return .paused
        }
        let limit = settings.configuration.maxResponseBytes
        guard receivedBytes + Int64(bytes.count) <= limit else {
            abortError = .limitExceeded(.responseBytes, value: Int(clamping: receivedBytes + Int64(bytes.count)), maximum: Int(clamping: limit))
            return .refused
        }
        receivedBytes += Int64(bytes.count)
        let received = receivedBytes
        if let sink = settings.bodySink {
            sink.receive(bytes)
            report(ImageLoadProgress(receivedBytes: received, expectedBytes: expectedBytes.map { max($0, received) }))
            return .taken
        }
        body.append(contentsOf: bytes)
        // The body is shared, not copied: callers that asked for partial data keep it, the others drop it.
        report(ImageLoadProgress(receivedBytes: received, expectedBytes: expectedBytes.map { max($0, received) }, partialData: body))
        return .taken
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
        if let expected = expectedBytes, expected > 0, settings.bodySink == nil { body.reserveCapacity(Int(expected)) }
        report(ImageLoadProgress(receivedBytes: 0, expectedBytes: expectedBytes))
        return nil
    }

    /// The outcome of a finished attempt, given libcurl's result code.
    func outcome(code: CURLcode, easy: UnsafeMutableRawPointer) -> Outcome {
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
        // A sink took the body (an empty one is passed on as such).
        if settings.bodySink != nil { return .success(ImageLoadResult(data: Data(), response: response)) }
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
