import Foundation
import LoaderHTTP
import NIOCore
import PipelineCore
import Synchronization

/// Carries one `raw:1` fetch to its answer as it arrives: the origin's response head (from the
/// loader's response modifier, before the body), then each run of body bytes (from the HTTP
/// loader's body sink, so it holds none of them; from a file loader's progress, which hands over
/// everything read so far), then the outcome. The answer starts
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
    /// Body bytes relayed and not yet written to the client; past `highWater` the HTTP loader's
    /// transfer pauses, so a client that reads slowly (or not at all) holds the origin's bytes in
    /// the origin's socket, not in this process.
    private let unwritten = Atomic<Int>(0)
    static let highWater = 1 << 20

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

    /// The HTTP loader's body sink: each run is copied once, into the buffer the client is
    /// written from; full while `highWater` bytes wait for the client.
    var bodySink: HTTPBodySink {
        HTTPBodySink(isFull: { [self] in unwritten.load(ordering: .relaxed) >= Self.highWater }) { [self] bytes in
            relay(upTo: nil, adding: bytes.count) { _ in ByteBuffer(bytes: bytes) }
        }
    }

    /// `count` relayed bytes reached the client's connection.
    func written(_ count: Int) { unwritten.subtract(count, ordering: .relaxed) }

    /// A loader's progress (one that takes no sink): relays the bytes after those relayed
    /// already, copying only those.
    func received(_ progress: ImageLoadProgress) {
        guard let partial = progress.partialData else { return }
        relay(upTo: partial.count) { relayed in ByteBuffer(bytes: partial[(partial.startIndex + relayed)...]) }
    }

    /// Relays the body's bytes from those relayed so far up to `total` (or `count` more), which
    /// `bytes` makes from the number relayed so far.
    private func relay(upTo total: Int?, adding count: Int = 0, _ bytes: (Int) -> ByteBuffer) {
        let resumed = state.withLock { state -> (CheckedContinuation<Start, Never>, Start)? in
            let end = total ?? state.relayed + count
            guard end > state.relayed else { return nil }
            let bytes = bytes(state.relayed)
            unwritten.add(bytes.readableBytes, ordering: .relaxed)
            state.relayed = end
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
                    // A last run the progress did not report (a tier in front of a loader may not).
                    let last = ByteBuffer(bytes: result.data[(result.data.startIndex + state.relayed)...])
                    unwritten.add(last.readableBytes, ordering: .relaxed)
                    continuation.yield(.bytes(last))
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
