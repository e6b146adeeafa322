import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PipelineCore

@Suite("Animated images")
struct AnimatedImageTests {
    @Test("Only the first frame is decoded up front; the others when asked for")
    func lazy() throws {
        let provider = GrayRampProvider(frames: 50)
        let animation = try AnimatedImage(provider: provider)
        #expect(provider.decodes.count == 1)
        #expect(animation.memoryCost == 256)
        let frame = try animation.frame(at: 17)
        #expect(frame.bytes.allSatisfy { $0 == 17 })
        #expect(provider.decodes.count == 2)
        _ = try animation.frame(at: 17)
        #expect(provider.decodes.count == 2, "a held frame is not decoded again")
        #expect(animation.memoryCost == 512)
    }

    @Test("Playing a long animation in order three times keeps memory flat")
    func boundedMemory() throws {
        let provider = GrayRampProvider(frames: 300)
        let animation = try AnimatedImage(provider: provider, frameCacheBytes: 256 * 8)
        for _ in 0..<3 {
            for index in 0..<300 { _ = try animation.frame(at: index) }
            #expect(animation.heldFrameCount <= 8)
            #expect(animation.memoryCost <= 256 * 9)
        }
    }

    @Test("Preloading holds every frame; unloading drops all but the poster")
    func preload() throws {
        let provider = GrayRampProvider(frames: 20)
        let animation = try AnimatedImage(provider: provider, frameCacheBytes: 256)
        try animation.preloadAllFrames()
        #expect(animation.heldFrameCount == 19)
        #expect(animation.memoryCost == 20 * 256)
        let decodes = provider.decodes.count
        for index in 0..<20 { _ = try animation.frame(at: index) }
        #expect(provider.decodes.count == decodes)
        animation.unloadAllFrames()
        #expect(animation.memoryCost == 256)
    }

    @Test("Frames outside the animation fail with a typed error")
    func outOfRange() throws {
        let image = Image(animation: try AnimatedImage(provider: GrayRampProvider(frames: 3)))
        #expect(throws: ImagePipeError.frameOutOfRange(index: 3, frameCount: 3)) { try image.frame(at: 3) }
        #expect(throws: ImagePipeError.frameOutOfRange(index: -1, frameCount: 3)) { try image.frame(at: -1) }
        #expect(throws: ImagePipeError.frameOutOfRange(index: .max, frameCount: 3)) { try image.frame(at: .max) }
        #expect(throws: ImagePipeError.frameOutOfRange(index: 1, frameCount: 1)) { try Image(image.firstFrame).frame(at: 1) }
    }

    @Test("Many tasks asking for random frames at once all get the right pixels")
    func concurrentFrames() async throws {
        let animation = try AnimatedImage(provider: GrayRampProvider(frames: 64), frameCacheBytes: 256 * 4)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var ok = true
                    for step in 0..<200 {
                        let index = (task * 31 + step * 17) % 64
                        let frame = try animation.frame(at: index)
                        ok = ok && frame.bytes.allSatisfy { $0 == UInt8(index) }
                    }
                    return ok
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    @Test("The image model reports frames, loops and durations, and downgrades to its first frame")
    func imageModel() throws {
        let image = Image(animation: try AnimatedImage(provider: GrayRampProvider(frames: 5)), orientation: .right)
        #expect(image.isAnimated)
        #expect(image.frameCount == 5)
        #expect(image.loopCount == 0)
        #expect(image.duration(at: 4) == 0.1)
        #expect(image.animation?.totalDuration == 0.5)
        #expect(image.format == .gif)
        let still = image.firstFrameOnly()
        #expect(!still.isAnimated && still.frameCount == 1 && still.orientation == .right)
        let frames = try image.frames()
        #expect(frames.count == 5 && frames[3].buffer.bytes[0] == 3)
        let upright = try image.applyingOrientation()
        #expect(upright.isAnimated && upright.frameCount == 5 && upright.orientation == .up)
        #expect(try upright.frame(at: 2).bytes[0] == 2)
    }
}
