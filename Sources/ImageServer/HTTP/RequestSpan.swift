import HTTPTypes
import Hummingbird
import Instrumentation
import Tracing

/// The server span of one request, through swift-distributed-tracing: continued from the
/// client's W3C `traceparent` when the bootstrapped instrument reads one, named by route
/// (`GET /health`, `GET image`), with the method, the redacted path (never the signature), the
/// request id and the status. The pipeline's spans for the request are its children. Without a
/// bootstrapped tracer nothing is recorded.
enum RequestSpan {
    static func around(
        _ request: Request, id: String, prefix: PathPrefix = PathPrefix(""), path: () -> String, _ answer: () async throws -> Response
    ) async throws -> Response {
        let instrument = InstrumentationSystem.instrument
        // No tracer bootstrapped: no span, not even a no-op one (a memory hit is microseconds).
        if instrument is NoOpInstrument { return try await answer() }
        var parent = InstrumentationContext.current ?? .topLevel
        instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let routed = prefix.strip(request.uri.path)
        let route = routed == "/health" || routed == "/metrics" ? routed ?? "" : "image"
        return try await withSpan("\(request.method.rawValue) \(route)", context: parent, ofKind: .server) { span in
            // Nothing to describe when no tracer records (the no-op span).
            guard span.isRecording else { return try await answer() }
            span.attributes["http.request.method"] = request.method.rawValue
            span.attributes["url.path"] = path()
            span.attributes["imagepipe.request_id"] = id
            let response = try await answer()
            span.attributes["http.response.status_code"] = Int64(response.status.code)
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }
}

/// Reads trace context headers (`traceparent`, `tracestate`) from a request's fields.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { fields[$0] }
    }
}
