import ImagePipe
import Instrumentation
import PipelineCore
import Tracing

/// The spans of a result rendered without the manager (no disk cache): `ImageServer.fetch`,
/// `.decode`, `.transform` and `.encode`, children of the request's span as the manager's steps
/// are of its load. The decode, transform and encode run off Swift's pool, where the request's
/// task-local context is not, so the context is taken when the render starts. Without a
/// bootstrapped tracer no span is made.
struct RenderSpans: Sendable {
    /// The request's context; nil when nothing records spans.
    private let context: ServiceContext?

    /// For the render that starts here, in the current task.
    init() {
        context = InstrumentationSystem.tracer is NoOpTracer ? nil : ServiceContext.current ?? .topLevel
    }

    /// `step` in a span named `name`, its error recorded; `step` gets nil when nothing records.
    func run<T>(_ name: String, _ step: ((any Span)?) throws -> T) rethrows -> T {
        guard let context else { return try step(nil) }
        let span = Self.start(InstrumentationSystem.tracer, name, context)
        defer { span.end() }
        do {
            return try step(span)
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// The asynchronous form of `run`, for the fetch.
    func run<T>(_ name: String, _ step: ((any Span)?) async throws(ServiceError) -> T) async throws(ServiceError) -> T {
        guard let context else { return try await step(nil) }
        let span = Self.start(InstrumentationSystem.tracer, name, context)
        defer { span.end() }
        do {
            return try await step(span)
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// Opens the tracer's type, so its generic `startSpan` can be called.
    private static func start<Spans: Tracer>(_ tracer: Spans, _ name: String, _ context: ServiceContext) -> any Span {
        tracer.startSpan(name, context: context)
    }
}
