import Foundation
import PipelineCore
import Synchronization

/// The tests' `ImageLoader`: answers the URLs of one scheme with the bytes or error set for each
/// (`missing` for the others, or else `invalidURL`), after `delay` (spent in four progress steps for bytes) and, for a
/// URL given a gate, only once the gate opens; a cancelled wait fails `cancelled`. It counts the
/// requests per URL and keeps every context it was given. Given a `FirstFrameLoad` (a first-frame
/// decode), it answers the bytes up to where the first frame ends, as the file loader does.
public final class TestLoader: ImageLoader {
    public enum Answer: Sendable {
        case data(Data)
        case error(ImagePipeError)
    }
    public typealias BlockRule = @Sendable (ImagePipeError) -> Bool

    public let scheme: String
    public let delay: Duration
    private let missing: Answer?
    private let blocks: BlockRule?
    private let answers = Mutex<[String: (answer: Answer, gate: Gate?)]>([:])
    private let counts = Mutex<[String: Int]>([:])
    private let seenContexts = Mutex<[ImageContext]>([])

    /// `blocks` decides which failures block a URL; without it, `ImagePipeError.blocksURLByDefault`.
    public init(
        scheme: String = "test", delay: Duration = .zero, missing: Answer? = nil,
        blocks: BlockRule? = nil
    ) {
        self.scheme = scheme
        self.delay = delay
        self.missing = missing
        self.blocks = blocks
    }

    public func answer(_ url: String, with answer: Answer, gate: Gate? = nil) {
        answers.withLock { $0[url] = (answer, gate) }
    }

    public func answer(_ url: URL, with answer: Answer, gate: Gate? = nil) {
        self.answer(url.absoluteString, with: answer, gate: gate)
    }

    public func requests(_ url: String) -> Int { counts.withLock { $0[url] ?? 0 } }
    public var totalRequests: Int { counts.withLock { $0.values.reduce(0, +) } }
    public var contexts: [ImageContext] { seenContexts.withLock { $0 } }

    public func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool { url.scheme == scheme }

    public func load(
        _ url: URL, options: ImageOptions, context: ImageContext,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult {
        counts.withLock { $0[url.absoluteString, default: 0] += 1 }
        seenContexts.withLock { $0.append(context) }
        if Task.isCancelled { throw ImagePipeError.cancelled }
        let (answer, gate) = answers.withLock { $0[url.absoluteString] } ?? (missing ?? .error(.invalidURL(url.absoluteString)), nil)
        if let gate {
            do { try await gate.wait() } catch { throw ImagePipeError.cancelled }
        }
        guard case .data(var data) = answer else {
            try await pause(delay)
            if case .error(let error) = answer { throw error }
            return ImageLoadResult(data: Data())
        }
        var isPrefix = false
        if case .endsAt(let end) = context[.firstFrameLoad]?.extent(of: data), end < data.count {
            data = data.prefix(end)
            isPrefix = true
        }
        let steps = 4
        for step in 1...steps {
            try await pause(delay / steps)
            let received = data.count * step / steps
            progress?(
                ImageLoadProgress(
                    receivedBytes: Int64(received), expectedBytes: Int64(data.count),
                    partialData: options.contains(.progressiveLoad) ? data.prefix(received) : nil))
        }
        return ImageLoadResult(data: data, isPrefix: isPrefix)
    }

    public func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        blocks?(error) ?? error.blocksURLByDefault
    }

    /// No delay: no suspension either, so a loaded machine's busy pool cannot slow the answer.
    private func pause(_ duration: Duration) async throws {
        guard duration > .zero else {
            if Task.isCancelled { throw ImagePipeError.cancelled }
            return
        }
        do { try await Task.sleep(for: duration) } catch { throw ImagePipeError.cancelled }
    }
}
