import CodersJXL
import Foundation
import PipelineCore
import TestSupport
import Testing

/// An animation made by cjxl from an APNG: frames, their durations and the loop count as the
/// source had them, in any order of access.
@Suite(.enabled(if: JXLFixtures.toolsInstalled, JXLFixtures.missingTools), .dedicatedThreads)
struct JXLAnimationTests {
    @Test("every frame is the source frame, with its duration, in any order")
    func framesAndDurations() throws {
        let image = try JXLCoder().decode(try JXLFixtures.animated.data(), options: ImageDecodeOptions())
        let animation = try #require(image.animation)
        #expect(image.format == .jxl)
        // cjxl 0.7 does not carry an APNG's play count over: its files loop forever.
        #expect(animation.frameCount == 3 && animation.loopCount == 0)
        #expect(image.pixelSize == ImageSize(width: 23, height: 13))
        let durations = (0..<3).map { animation.duration(at: $0) }
        #expect(zip(durations, [0.04, 0.12, 0.05]).allSatisfy { abs($0 - $1) < 0.0005 }, "\(durations)")
        for index in [2, 0, 1, 1, 2, 0] {
            #expect(try animation.frame(at: index).bytes == JXLFixtures.animationFrame(index), "frame \(index)")
        }
        #expect(throws: ImagePipeError.frameOutOfRange(index: 3, frameCount: 3)) { try animation.frame(at: 3) }
    }

    @Test("firstFrameOnly gives the first frame as a still image")
    func firstFrameOnly() throws {
        let image = try JXLCoder().decode(try JXLFixtures.animated.data(), options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(!image.isAnimated)
        #expect(image.firstFrame.bytes == JXLFixtures.animationFrame(0))
    }

    @Test("a thumbnail animation has every frame at the thumbnail's size")
    func thumbnail() throws {
        let image = try JXLCoder().decode(try JXLFixtures.animated.data(), options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 12, height: 12)))
        let animation = try #require(image.animation)
        #expect(try animation.frame(at: 1).size == ImageSize(width: 12, height: 7))
    }

    @Test("the frame and animation-pixel limits refuse the animation from its headers")
    func limits() throws {
        let data = try JXLFixtures.animated.data()
        #expect(throws: ImagePipeError.limitExceeded(.frames, value: 3, maximum: 2)) { try JXLCoder().decode(data, options: ImageDecodeOptions(maxFrames: 2)) }
        #expect(throws: ImagePipeError.limitExceeded(.animationPixels, value: 23 * 13 * 3, maximum: 500)) {
            try JXLCoder().decode(data, options: ImageDecodeOptions(maxAnimationPixels: 500))
        }
    }

    @Test("frames are read from many tasks at once")
    func concurrentFrames() async throws {
        let animation = try #require(try JXLCoder().decode(try JXLFixtures.animated.data(), options: ImageDecodeOptions()).animation)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<12 {
                group.addTask { try animation.frame(at: task % 3).bytes == JXLFixtures.animationFrame(task % 3) }
            }
            for try await same in group { #expect(same) }
        }
    }
}
