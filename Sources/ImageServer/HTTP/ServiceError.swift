import Hummingbird
import LoaderHTTP
import PipelineCore

/// A failed request: the HTTP status and a one-line reason for the client, thrown by routes and
/// middleware and answered as `text/plain` by Hummingbird. Reasons say what was wrong with the
/// request or the source, never the server's internals or its configuration.
struct ServiceError: HTTPResponseError, Hashable, CustomStringConvertible {
    let status: HTTPResponse.Status
    let reason: String
    /// What the operator may want to know and the client must not: the access log's `reason`
    /// carries it after the client's reason.
    let hint: String?
    /// The source could not be fetched (the origin's answer, the network, its size): where a
    /// fallback image is configured, it is answered instead.
    var isFetchFailure = false

    var description: String { "\(status.code) \(reason)" }

    init(status: Int, reason: String, hint: String? = nil) {
        self.status = HTTPResponse.Status(code: status)
        self.reason = reason
        self.hint = hint
    }

    /// Never cached; a 429 says when to come back and a 405 what is allowed.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
        if status == .tooManyRequests { headers[.retryAfter] = "1" }
        if status == .methodNotAllowed { headers[.allow] = "GET, HEAD, OPTIONS" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: reason + "\n")))
    }

    static func badRequest(_ reason: String) -> Self { .init(status: 400, reason: reason) }
    static func forbidden(_ reason: String) -> Self { .init(status: 403, reason: reason) }
    static let notFound = ServiceError(status: 404, reason: "not found")
    static let tooManyRequests = ServiceError(status: 429, reason: "too many requests; try again later")
    static let deadlineExceeded = ServiceError(status: 503, reason: "the request took longer than the server allows")
    static let internalError = ServiceError(status: 500, reason: "internal error")
    static let cancelled = ServiceError(status: 499, reason: "cancelled")
    /// The origin answered 304 to the client's validators: so does the server, without a body.
    static let notModified = ServiceError(status: 304, reason: "not modified")

    /// The answer for a pipeline failure while loading, decoding, transforming or encoding a source.
    init(_ error: ImagePipeError) {
        self.init(answering: error)
        switch error {
        case .loadFailed(.httpStatus, 304?, _):
            break
        case .loadFailed, .invalidResponse, .badContentType, .invalidDownloadOperation, .accessDenied, .fileSystem, .invalidURL, .blockedURL:
            isFetchFailure = true
        case .limitExceeded(let limit, _, _) where limit == .responseBytes || limit == .fileSize || limit == .redirects:
            isFetchFailure = true
        default:
            break
        }
    }

    private init(answering error: ImagePipeError) {
        switch error {
        case .loadFailed(.httpStatus, 304?, _):
            // The origin's answer to the client's validators (`OriginConditions`), passed on as imgproxy does.
            self = .notModified
        case .loadFailed(.httpStatus, let status?, _) where (400..<500).contains(status):
            // imgproxy passes the origin's 4xx on, 5xx as 502.
            self.init(status: status, reason: status == 404 || status == 410 ? "the source was not found (HTTP \(status))" : "the source server answered HTTP \(status)")
        case .loadFailed(.httpStatus, let status?, _):
            self.init(status: 502, reason: "the source server answered HTTP \(status)")
        case .loadFailed(.blockedAddress, _, _):
            self.init(
                status: 404, reason: "the source address is not allowed",
                hint: "the SSRF guard refused a loopback, private or link-local address; --allow-private-sources lets the server fetch from a private origin")
        case .loadFailed(.redirectRefused, _, _):
            self.init(status: 403, reason: "the source redirected outside the allowed sources")
        case .loadFailed(.timedOut, _, _):
            self.init(status: 504, reason: "the source server did not answer in time")
        case .loadFailed(let failure, _, _):
            self.init(status: 502, reason: "the source could not be fetched (\(failure.name))")
        case .invalidResponse, .badContentType, .invalidDownloadOperation:
            self.init(status: 502, reason: "the source server's response was not usable")
        case .limitExceeded(let limit, _, _) where limit == .responseBytes || limit == .fileSize:
            self.init(status: 422, reason: "the source is larger than the server accepts")
        case .limitExceeded(let limit, _, _) where limit == .workingMemory:
            // The server's capacity, not the image's fault: another server, or this one later, may do it.
            self.init(status: 503, reason: "the server has not enough memory for this image; try again later")
        case .limitExceeded(let limit, _, _) where limit == .redirects:
            self.init(status: 502, reason: "the source server redirected too many times")
        case .limitExceeded(let limit, let value, let maximum):
            let amount = value == .max ? "too large" : "\(value), over the maximum of \(maximum)"
            self.init(status: 422, reason: "the image exceeds the \(Self.limitName(limit)) limit (\(amount))")
        case .unsupportedFormat:
            self.init(status: 422, reason: "the source is not an image format the server reads")
        case .badImageData:
            self.init(status: 422, reason: "the source is not a valid image")
        case .frameOutOfRange:
            self.init(status: 422, reason: "the source has no such frame")
        case .accessDenied:
            self.init(status: 403, reason: "the source is outside the local root")
        case .fileSystem:
            self.init(status: 404, reason: "the source was not found")
        case .invalidURL, .blockedURL:
            self.init(status: 404, reason: "the source URL cannot be loaded")
        case .cancelled:
            self = .cancelled
        case .encodingFailed, .cacheNotModified:
            self = .internalError
        }
    }

    /// The limit as a user of the service knows it.
    private static func limitName(_ limit: ImagePipeError.Limit) -> String {
        switch limit {
        case .pixels: "source pixels"
        case .frames: "animation frames"
        case .animationPixels: "animation pixels"
        case .animationFramePixels: "animation frame pixels"
        case .outputPixels: "output pixels"
        default: limit.name
        }
    }
}
