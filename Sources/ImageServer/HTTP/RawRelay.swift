import Foundation
import LoaderHTTP
import NIOCore
import PipelineCore
import Synchronization

/// Carries one `raw:1` fetch to its answer as it arrives: the origin's response head (from the
/// loader's response modifier, before the body), then each new run of body bytes (from its
/// progress, which hands over everything received so far), then the outcome. The answer starts
/// at the first body bytes (`start` returns `.streaming`) or, when the fetch ends first, with
/// the whole outcome (`.finished`); the body is then `chunks`, to its end or its failure.
final class RawRelay: Sendable {
    enum Start: Sendable {
        /// Body bytes arrived; `head` is the origin's response when the loader reported it.
        case streaming(head: HTTPLoadResponse?, first: ByteBuffer)
        /// The fetch ended before any body byte was relayed (a cache answered, or it failed).
        case finished(Result<ImageLoadResult, ServiceError>, head: HTTPLoadResponse?)
    }

    enum Chunk: Sendable {
        case bytes(ByteBuffer)
        /// The fetch failed after the answer began: the client must see a cut body, not an end.
        case failed(ServiceError)
    }

    let chunks: AsyncStream<Chunk>
    private let continuation: AsyncStream<Chunk>.Continuation

    private struct State {
        var head: HTTPLoadResponse?
        /// Body bytes relayed so far.
        var relayed = 0
        var start: Start?
        var waiter: CheckedContinuation<Start, Never>?
    }
    private let state = Mutex(State())

    init() {
        (chunks, continuation) = AsyncStream<Chunk>.makeStream()
    }

    /// The loader's response modifier: notes the head, changes nothing.
    var responseModifier: HTTPResponseModifier {
        HTTPResponseModifier { [self] response in
            state.withLock { $0.head = response }
            return response
        }
    }

    /// The loader's progress: relays the bytes after those relayed already. Copies only those, so
    /// the loader's buffer is not shared past this call (its next append would copy it whole).
    func received(_ progress: ImageLoadProgress) {
        guard let partial = progress.partialData else { return }
        let resumed = state.withLock { state -> (CheckedContinuation<Start, Never>, Start)? in
            guard partial.count > state.relayed else { return nil }
            let bytes = ByteBuffer(bytes: partial[(partial.startIndex + state.relayed)...])
            state.relayed = partial.count
            guard state.start == nil else {
                continuation.yield(.bytes(bytes))
                return nil
            }
            let start = Start.streaming(head: state.head, first: bytes)
            state.start = start
            defer { state.waiter = nil }
            return state.waiter.map { ($0, start) }
        }
        if let (waiter, start) = resumed { waiter.resume(returning: start) }
    }

    /// The fetch's outcome: the answer whole when nothing was relayed yet, else the end of the body.
    func finished(_ outcome: Result<ImageLoadResult, ServiceError>) {
        let resumed = state.withLock { state -> (CheckedContinuation<Start, Never>, Start)? in
            guard state.start == nil else {
                if case .success(let result) = outcome, result.data.count > state.relayed {
                    // A last run the progress did not report (the loader reports what it receives; a tier in front may not).
                    continuation.yield(.bytes(ByteBuffer(bytes: result.data[(result.data.startIndex + state.relayed)...])))
                }
                if case .failure(let error) = outcome { continuation.yield(.failed(error)) }
                return nil
            }
            let start = Start.finished(outcome, head: state.head)
            state.start = start
            defer { state.waiter = nil }
            return state.waiter.map { ($0, start) }
        }
        continuation.finish()
        if let (waiter, start) = resumed { waiter.resume(returning: start) }
    }

    /// Waits for the first body bytes or the end of the fetch, whichever comes first.
    func start() async -> Start {
        await withCheckedContinuation { waiter in
            let ready = state.withLock { state -> Start? in
                if let start = state.start { return start }
                state.waiter = waiter
                return nil
            }
            if let ready { waiter.resume(returning: ready) }
        }
    }
}
