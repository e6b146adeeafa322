import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// A first-frame-only decode lets the loader stop after the first frame (`FirstFrameLoad`); those
/// bytes are decoded and dropped, never cached or handed on as the file.
@Suite("Image manager first-frame loads")
struct ImageManagerFirstFrameLoadTests {
    let url = URL(string: "test://frames/anim.timg")!

    /// Three 8x4 frames of different colours: the first frame ends well before the file does.
    func serveAnimation(_ f: ManagerFixture) throws -> Data {
        let frames = try [ImageColor.white, .black, ImageColor(red: 255, green: 0, blue: 0)].map {
            try PixelBuffer(width: 8, height: 4, format: .rgba8, fill: $0)
        }
        let data = TestCoder.file(frames)
        f.loader.answer(url, with: .data(data))
        return data
    }

    @Test("Only a first-frame request tells the loader it may stop after the first frame")
    func onlyFirstFrameRequestsMayStopEarly() async throws {
        let f = ManagerFixture(delay: .zero)
        _ = try serveAnimation(f)
        // A caller's own value never reaches the loader of a full decode.
        let planted = ImageContext().with(.firstFrameLoad, FirstFrameLoad(coder: f.coders))
        let full = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly], context: planted)
        let first = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly, .decodeFirstFrameOnly])
        #expect(full.image?.frameCount == 3)
        #expect(first.image?.frameCount == 1)
        #expect(f.loader.contexts.map { $0[.firstFrameLoad] != nil } == [false, true])
    }

    @Test("The first frame's bytes are decoded but not returned, nor stored on disk; a later full load gets the animation")
    func prefixIsNeitherReturnedNorStored() async throws {
        let f = ManagerFixture(delay: .zero)
        let data = try serveAnimation(f)
        let first = try await f.manager.loadImage(with: url, options: [.decodeFirstFrameOnly, .waitStoreCache])
        let image = try #require(first.image)
        #expect(image.frameCount == 1)
        #expect(image.firstFrame.color(x: 0, y: 0) == .white)
        #expect(image.metadata.hasUnreadMetadata)
        #expect(first.data == nil)
        #expect(first.metrics?.loadedBytes ?? .max < data.count)
        #expect(f.cache.diskData(url.absoluteString) == nil)
        #expect(f.cache.stores.allSatisfy { !$0.type.includesDisk && !$0.hadData })
        let full = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly, .waitStoreCache])
        #expect(full.image?.frameCount == 3)
        #expect(full.data == data)
        #expect(f.cache.diskData(url.absoluteString) == data)
    }

    @Test("A full and a first-frame load of one URL in flight together do not share the download")
    func fullAndFirstFrameLoadsDoNotShare() async throws {
        let f = ManagerFixture(delay: .milliseconds(50))
        _ = try serveAnimation(f)
        async let full = f.manager.loadImage(with: url, options: [.fromLoaderOnly])
        async let first = f.manager.loadImage(with: url, options: [.fromLoaderOnly, .decodeFirstFrameOnly])
        let (fullResult, firstResult) = try await (full, first)
        #expect(fullResult.image?.frameCount == 3)
        #expect(firstResult.image?.frameCount == 1)
        #expect(f.loader.requests(url.absoluteString) == 2)
    }
}
