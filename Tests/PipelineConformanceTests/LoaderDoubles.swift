import Foundation
import PipelineCore
import Synchronization
import TestSupport

/// The kit's correct loader: a `TestLoader` for `memory://` URLs, where `memory://image` holds
/// `bytes`, `memory://never` waits until cancelled (a gate nobody opens), and anything else is an
/// invalid URL.
enum InMemoryLoader {
    static let bytes = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 3) })
    static let image = URL(string: "memory://image")!
    static let never = URL(string: "memory://never")!

    static func make() -> TestLoader {
        let loader = TestLoader(scheme: "memory")
        loader.answer(image, with: .data(bytes))
        loader.answer(never, with: .data(bytes), gate: Gate())
        return loader
    }

    static func fixture() -> LoaderFixtureValues {
        LoaderFixtureValues(failing: [URL(string: "memory://missing")!], foreign: [URL(string: "https://example.com/a.png")!])
    }
}

/// The fixture's URL lists, shared by the doubles' tests.
struct LoaderFixtureValues {
    let failing: [URL]
    let foreign: [URL]
}

/// Broken: on cancel it throws `cancelled` but lets the work it started run on and report the
/// finished download afterwards — the caller hears about the load twice.
struct CompletesTwiceOnCancelLoader: ImageLoader {
    let base = InMemoryLoader.make()
    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool { base.canLoad(url, options: options, context: context) }

    func load(_ url: URL, options: ImageOptions, context: ImageContext, progress: (@Sendable (ImageLoadProgress) -> Void)?) async throws -> ImageLoadResult {
        guard Task.isCancelled || url == InMemoryLoader.never else {
            return try await base.load(url, options: options, context: context, progress: progress)
        }
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        Task.detached {
            // The orphaned work finishes a moment later and still reports.
            try? await Task.sleep(for: .milliseconds(100))
            progress?(ImageLoadProgress(receivedBytes: Int64(InMemoryLoader.bytes.count), expectedBytes: Int64(InMemoryLoader.bytes.count)))
        }
        throw ImagePipeError.cancelled
    }
}

/// Broken: ignores cancellation; a load of `memory://never` never ends.
struct NeverCompletesOnCancelLoader: ImageLoader {
    let base = InMemoryLoader.make()
    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool { base.canLoad(url, options: options, context: context) }

    func load(_ url: URL, options: ImageOptions, context: ImageContext, progress: (@Sendable (ImageLoadProgress) -> Void)?) async throws -> ImageLoadResult {
        if url == InMemoryLoader.never {
            // Suspends forever without holding a thread.
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
        // Detached, so the caller's cancellation never reaches the work.
        return try await Task.detached { try await base.load(url, options: options, context: context, progress: progress) }.value
    }
}

/// Broken: puts cancelled URLs on the failed list.
struct BlocksCancelledLoader: ImageLoader {
    let base = InMemoryLoader.make()
    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool { base.canLoad(url, options: options, context: context) }
    func load(_ url: URL, options: ImageOptions, context: ImageContext, progress: (@Sendable (ImageLoadProgress) -> Void)?) async throws -> ImageLoadResult {
        try await base.load(url, options: options, context: context, progress: progress)
    }
    func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool { true }
}
