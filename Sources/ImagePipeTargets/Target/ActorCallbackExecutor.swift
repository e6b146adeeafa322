import ImagePipe
/// Runs handlers on an actor, one after another in the order given: the default executor of a
/// target whose `setImage` was called from an actor (captured with `#isolation`), so code living on
/// a global actor gets its updates there, without hopping itself.
import PipelineCore

final class ActorCallbackExecutor: CallbackExecutor {
    private let continuation: AsyncStream<@Sendable () -> Void>.Continuation

    init(_ actor: any Actor) {
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () -> Void).self)
        self.continuation = continuation
        // One consumer per executor keeps the handlers in order; separate tasks per handler would not.
        Task { [weak actor] in
            for await work in stream {
                if let actor { await Self.run(work, on: actor) } else { work() }
            }
        }
    }

    deinit { continuation.finish() }

    func execute(_ work: @escaping @Sendable () -> Void) { continuation.yield(work) }

    private static func run(_ work: @Sendable () -> Void, on actor: isolated any Actor) { work() }
}
