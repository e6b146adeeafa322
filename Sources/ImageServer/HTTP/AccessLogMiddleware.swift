import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PipelineCore

/// The outermost middleware: gives the request its id and its server span (`RequestSpan`), turns
/// a thrown error into its answer, counts and times the request, and writes its access-log line. A HEAD request's answer keeps
/// its headers and loses its body here, for errors as for images.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = ImageRequestContext

    let logger: Logger
    let metrics: ServerMetrics
    var prefix = PathPrefix("")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let id = RequestID.accepting(request.headers[.xRequestID])
        var context = context
        context.logger[metadataKey: "hb.request.id"] = .string(id)
        // Redacting the path costs more than a memory hit's lookup: only for a line or a span.
        let path = { AccessLog.redacted(request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""), prefix: prefix) }
        var response = try await RequestSpan.around(request, id: id, prefix: prefix, path: path) {
            do {
                return try await next(request, context)
            } catch let error as any HTTPResponseError {
                let serviceError = error as? ServiceError
                context.outcome.failure = serviceError.map { error in error.hint.map { "\(error.reason) (\($0))" } ?? error.reason } ?? error.status.reasonPhrase
                return try error.response(from: request, context: context)
            }
        }
        response.headers[.xRequestID] = id
        let elapsed = ContinuousClock.now - start
        metrics.countRequest(status: response.status.code, duration: elapsed)
        if logger.logLevel <= .info {
            AccessLog.write(
                logger, request: request, response: response, path: path(), elapsed: elapsed, outcome: context.outcome, id: id,
                client: context.channel.remoteAddress?.ipAddress)
        }
        return request.method == .head ? response.createHeadResponse() : response
    }
}

/// One line per request through swift-log. The message is `METHOD PATH STATUS`; the metadata
/// carries the fields a log pipeline reads: `request_id`, `client` (the peer's address),
/// `user_agent`, `method`, `path` (the signature cut off: it is a credential for that URL),
/// `image_url` (the source, decoded, its credentials redacted), `status`, `bytes`, `duration_ms`, `tier` (the
/// cache tier that answered, when one did) and `reason` (an error answer's).
enum AccessLog {
    static func write(
        _ logger: Logger, request: Request, response: Response, path: String, elapsed: Duration, outcome: RequestOutcome, id: String,
        client: String?
    ) {
        let milliseconds = (Double(ServerMetrics.nanoseconds(elapsed)) / 100_000).rounded() / 10
        var metadata: Logger.Metadata = [
            "request_id": .string(id),
            "method": .string(request.method.rawValue),
            "path": .string(path),
            "status": .stringConvertible(response.status.code),
            "bytes": .stringConvertible(response.body.contentLength ?? 0),
            "duration_ms": .stringConvertible(milliseconds),
        ]
        if let client { metadata["client"] = .string(client) }
        if let agent = request.headers[.userAgent] { metadata["user_agent"] = .string(ProcessingURL.printable(agent, limit: 256)) }
        if let source = outcome.source { metadata["image_url"] = .string(ProcessingURL.printable(CredentialRedaction.redacting(source), limit: 512)) }
        if let tier = outcome.tier { metadata["tier"] = .string(tier) }
        if let failure = outcome.failure { metadata["reason"] = .string(failure) }
        logger.info("\(request.method) \(path) \(response.status.code)", metadata: metadata)
    }

    /// The target with its signature (the first segment after the path prefix, the second after
    /// `/info`) replaced by `*` and the credentials of a plain source URL by `***`, cut to 512 characters.
    static func redacted(_ target: String, prefix: PathPrefix = PathPrefix("")) -> String {
        let routed = prefix.strip(target)
        var segments = (routed ?? target).split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        let signature = segments.count >= 4 && segments[1] == "info" ? 2 : 1
        if segments.count >= signature + 2 { segments[signature] = "*" }
        let path = (routed == nil ? "" : prefix.value) + segments.joined(separator: "/")
        return ProcessingURL.printable(CredentialRedaction.redacting(path), limit: 512)
    }
}

extension HTTPField.Name {
    static let xRequestID = Self("X-Request-ID")!
}
