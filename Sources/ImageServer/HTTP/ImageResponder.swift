import Foundation
import Hummingbird
import Logging
import NIOCore
import PipelineCore
import Synchronization

/// Answers every request on the main port: `GET /health` and image URLs (`/metrics` has a port of
/// its own).
/// Each request is counted, timed and written to the access log here, once.
struct ImageResponder: HTTPResponder {
    typealias Context = ImageRequestContext

    let handler: ImageRequestHandler

    func respond(to request: Request, context: Context) async throws -> Response {
        let start = ContinuousClock.now
        let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        let response: Response
        var tier: String?
        switch (request.method, request.uri.path) {
        case _ where target.utf8.count > handler.configuration.maxURLLength:
            response = ImageRequestHandler.error(
                ServiceError(status: 414, reason: "the URL is longer than the server takes (\(handler.configuration.maxURLLength) bytes)"))
        case (.get, "/health"), (.head, "/health"):
            response = handler.health()
        case (.get, "/metrics"):
            response = ImageRequestHandler.error(.notFound)
        case (.get, _), (.head, _):
            (response, tier) = await handler.image(request: request, target: target, channel: context.channel)
        default:
            response = ImageRequestHandler.error(ServiceError(status: 405, reason: "only GET and HEAD are answered"))
        }
        let elapsed = ContinuousClock.now - start
        handler.metrics.countRequest(status: response.status.code, duration: elapsed)
        AccessLog.write(
            handler.logger, request: request, target: target, status: response.status.code,
            bytes: response.headers[.contentLength].flatMap(Int.init) ?? 0, elapsed: elapsed, tier: tier)
        if request.method == .head {
            var head = response
            head.body = ResponseBody()
            return head
        }
        return response
    }
}

/// One line per request through swift-log: method, path (the signature cut off: it is a
/// credential for that URL), status, bytes, milliseconds and the cache tier that answered.
enum AccessLog {
    static func write(_ logger: Logger, request: Request, target: String, status: Int, bytes: Int, elapsed: Duration, tier: String?) {
        let milliseconds = Double(ServerMetrics.nanoseconds(elapsed)) / 1_000_000
        logger.info("\(request.method) \(redacted(target)) \(status) \(bytes) \(String(format: "%.1f", milliseconds))ms\(tier.map { " " + $0 } ?? "")")
    }

    /// The target with its first segment (the signature) replaced by `*` and the credentials of a
    /// plain source URL by `***`, cut to 512 characters.
    static func redacted(_ target: String) -> String {
        var segments = target.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        if segments.count >= 3 { segments[1] = "*" }
        return ProcessingURL.printable(CredentialRedaction.redacting(segments.joined(separator: "/")), limit: 512)
    }
}
