import CodersGIF
import Foundation
import ImagePipe
import LoaderFile
import PipelineCore
import TestSupport
import Testing

/// `fetch` of an animation into a still format decodes its first frame only: through a manager
/// like the tool's (no cache, the file loader), a GIF is then read only as far as that frame, and
/// nothing else changes. Its own registries: the shared ones are left as other suites expect them.
@Suite("fetch reads an animation's first frame only", .dedicatedThreads)
struct FirstFrameFetchTests {
    let directory: URL
    let manager = ImageManager(cache: ImageCachesManager(), loader: FileLoader(), coders: ImageCodersManager(coders: [GIFCoder()]))

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-first-frame-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ data: Data) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// An animation whose first frame is early in a file of about 400 KB.
    var animation: Data {
        GIFComments.inserting(400_000, into: HostileAnimations.gif(frames: 12, width: 64, height: 48, rect: 8), afterImages: 1)
    }

    /// Straight from the loader; `retryFailed` so a failure does not block the URL for the next load.
    func load(_ url: URL, _ options: ImageOptions) async throws -> ImageResult {
        try await manager.loadImage(with: url, options: options.union([.waitStoreCache, .fromLoaderOnly, .retryFailed]))
    }

    @Test("A first-frame load reads less than the file and gives the full decode's first frame; a full load reads it all")
    func firstFrameLoadReadsLess() async throws {
        let data = animation
        let url = try write("early.gif", data)
        let first = try await load(url, .decodeFirstFrameOnly)
        let full = try await load(url, [])
        #expect(try #require(first.metrics?.loadedBytes) < data.count / 2)
        #expect(first.data == nil)
        #expect(full.metrics?.loadedBytes == data.count && full.data == data)
        let image = try #require(first.image), animation = try #require(full.image)
        #expect(image.frameCount == 1 && animation.frameCount == 12)
        #expect(try image.firstFrame == animation.frame(at: 0))
    }

    @Test("A first frame late in a large file (big extensions before it) still loads")
    func lateFirstFrame() async throws {
        let data = GIFComments.inserting(400_000, into: HostileAnimations.gif(frames: 4, width: 32, height: 32, rect: 8), afterImages: 0)
        let url = try write("late.gif", data)
        let first = try await load(url, .decodeFirstFrameOnly)
        #expect(try #require(first.metrics?.loadedBytes) > 400_000)
        #expect(first.image?.pixelSize == ImageSize(width: 32, height: 32))
    }

    /// What a load ends with: its error, or its first frame and warnings.
    enum Outcome: Equatable {
        case failed(ImagePipeError?)
        case loaded(PixelBuffer, [ImageDecodeWarning])
    }

    func outcome(_ url: URL, _ options: ImageOptions) async -> Outcome {
        do {
            let image = try #require(try await load(url, options).image)
            return .loaded(image.firstFrame, image.metadata.warnings)
        } catch {
            return .failed(error as? ImagePipeError)
        }
    }

    @Test("A GIF cut before or inside its first frame ends the same with and without first-frame-only", arguments: [false, true])
    func truncatedFirstFrame(insideImageData: Bool) async throws {
        let data = GIFComments.inserting(200_000, into: HostileAnimations.gif(frames: 2, width: 32, height: 32, rect: 8), afterImages: 0)
        guard case .endsAt(let end) = GIFCoder().firstFrameExtent(of: data) else {
            Issue.record("no first frame")
            return
        }
        let url = try write("cut.gif", data.prefix(insideImageData ? end - 3 : 150_000))
        let firstOnly = await outcome(url, .decodeFirstFrameOnly)
        #expect(firstOnly == (await outcome(url, [])))
        if case .loaded(_, let warnings) = firstOnly {
            #expect(insideImageData && warnings.contains { $0.kind == .truncated })
        } else {
            #expect(!insideImageData && firstOnly != .failed(nil))
        }
    }
}
