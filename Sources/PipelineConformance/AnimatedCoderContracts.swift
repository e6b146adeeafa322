import Foundation
import PipelineCore

/// What an animated coder's frames must do: positive durations, the same pixels whatever order or
/// however many tasks ask for them.
enum AnimatedCoderContracts {
    static func check(_ image: Image, _ sample: CoderSample, _ log: inout FailureLog) async {
        guard let animation = image.animation else { return }
        for index in 0..<animation.frameCount where animation.duration(at: index) <= 0 {
            log.fail("animated.durations", sample.name, "frame \(index) has duration \(animation.duration(at: index)); every frame must show for some time")
        }
        let forward: [PixelBuffer]
        do {
            forward = try (0..<animation.frameCount).map { try animation.frame(at: $0) }
        } catch {
            log.fail("animated.frames", sample.name, "frame decoding failed: \(error)")
            return
        }
        for (index, frame) in forward.enumerated() where frame.size != image.pixelSize {
            log.fail("animated.frames", sample.name, "frame \(index) is \(frame.size), the canvas is \(image.pixelSize)")
        }
        // A fresh decode asked in reverse order must give the same frames (random access).
        animation.unloadAllFrames()
        for index in (0..<animation.frameCount).reversed() {
            if let frame = try? animation.frame(at: index), frame != forward[index] {
                log.fail("animated.randomAccess", sample.name, "frame \(index) differs when frames are asked for in reverse order")
                break
            }
        }
        // Several tasks asking at once, straight from the provider (no frame cache in between).
        let provider = animation.provider
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<(provider.frameCount * 2) {
                        let index = (step * (task + 1) + task) % provider.frameCount
                        if (try? provider.frame(at: index)) != forward[index] { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        log.expect(mismatches == 0, "animated.concurrency", sample.name, "\(mismatches) frames differed when four tasks asked at once")
    }
}
