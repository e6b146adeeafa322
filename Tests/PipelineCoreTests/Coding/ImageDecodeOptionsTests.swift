import Testing

@testable import PipelineCore

@Suite("Decode options")
struct ImageDecodeOptionsTests {
    @Test("Frames times canvas over maxAnimationPixels is refused with the total and the setting to raise")
    func animationBudget() throws {
        let options = ImageDecodeOptions(maxAnimationPixels: 1_000_000)
        try options.checkAnimationPixels(frameCount: 100, canvas: ImageSize(width: 100, height: 100))
        let error = #expect(throws: ImagePipeError.self) {
            try options.checkAnimationPixels(frameCount: 101, canvas: ImageSize(width: 100, height: 100))
        }
        #expect(error == .limitExceeded(.animationPixels, value: 1_010_000, maximum: 1_000_000))
        #expect(error?.description == "animationPixels limit exceeded: 1010000 is more than the maximum of 1000000; raise ImageDecodeOptions.maxAnimationPixels if this is expected")
    }

    @Test("A still image and a first-frame-only decode are one frame, left to maxPixels")
    func oneFrameIsLeftToMaxPixels() throws {
        let budget = ImageDecodeOptions(maxAnimationPixels: 10_000)
        try budget.checkAnimationPixels(frameCount: 1, canvas: ImageSize(width: 1_000, height: 1_000))
        var firstFrame = budget
        firstFrame.firstFrameOnly = true
        try firstFrame.checkAnimationPixels(frameCount: 10_000, canvas: ImageSize(width: 1_000, height: 1_000))
        #expect(throws: ImagePipeError.limitExceeded(.animationPixels, value: 20_200, maximum: 10_000)) {
            try budget.checkAnimationPixels(frameCount: 2, canvas: ImageSize(width: 101, height: 100))
        }
    }

    @Test("A total that overflows is refused as a hostile header, not wrapped around")
    func overflowingTotal() {
        #expect(throws: ImagePipeError.limitExceeded(.animationPixels, value: .max, maximum: ImageDecodeOptions.defaultMaxAnimationPixels)) {
            try ImageDecodeOptions().checkAnimationPixels(frameCount: .max / 2, canvas: ImageSize(width: 65_535, height: 65_535))
        }
    }
}
