import CodersWebP
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("WebP provider shared between tasks", .dedicatedThreads)
struct WebPConcurrencyTests {
    @Test("Many tasks asking one provider for frames in random order all get libwebp's frames")
    func concurrentFrames() async throws {
        let data = try Corpus.data("webp", "sdwebimage-webpcoder/TestImageBlendAnimated.webp")
        let reference = try #require(LibWebPReference.animation(data))
        let provider = try #require(try WebPCoder().animatedImageProvider(for: data, options: ImageDecodeOptions()))
        let count = provider.frameCount
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var bad = 0
                    for step in 0..<12 {
                        let index = (task * 5 + step * 7) % count
                        if try provider.frame(at: index).converted(to: .rgba8).bytes != reference.frames[index] { bad += 1 }
                    }
                    return bad
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
