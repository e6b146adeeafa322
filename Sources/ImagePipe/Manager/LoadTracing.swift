import PipelineCore
import Tracing

/// The spans of one load, through swift-distributed-tracing's API: a span for the load, children
/// for its steps, each ended when its step does and marked failed by the error it throws. Names
/// and attributes are listed in the “Logs, metrics and traces” article.
struct LoadTracing: Sendable {
    let tracer: any Tracer

    init(_ tracer: (any Tracer)?) {
        self.tracer = tracer ?? InstrumentationSystem.tracer
    }

    /// Runs `step` in a child span of the current one, named `name`.
    func span<T>(_ name: String, _ step: (any Span) async throws -> T) async throws -> T {
        try await Self.run(tracer, name, step)
    }

    /// Opens the tracer's type, so its generic `withSpan` can be called.
    private static func run<Spans: Tracer, T>(_ tracer: Spans, _ name: String, _ step: (any Span) async throws -> T) async throws -> T {
        try await tracer.withSpan(name) { span in try await step(span) }
    }

    /// Starts the load's own span, for `load(for:)` to end once the task has its answer.
    func startLoad() -> any Span {
        Self.start(tracer, "ImagePipe.load")
    }

    private static func start<Spans: Tracer>(_ tracer: Spans, _ name: String) -> any Span {
        tracer.startSpan(name)
    }
}

extension Span {
    /// `image.width`, `image.height` and `image.format` of `image` (the server's spans too).
    package func describe(_ image: Image) {
        attributes["imagepipe.image.width"] = Int64(image.pixelSize.width)
        attributes["imagepipe.image.height"] = Int64(image.pixelSize.height)
        attributes["imagepipe.image.format"] = image.format.identifier
    }
}
