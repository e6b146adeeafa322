import CodersGIF
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("GIF provider shared between tasks", .dedicatedThreads)
struct GIFConcurrencyTests {
    @Test("Many tasks asking one provider for frames in random order get the sequential frames")
    func concurrentFrames() async throws {
        let data = try Corpus.data("gif", "peterdn-gif-test-suite/animated_transparent_frame_restoreprev_loop.gif")
        let sequential = try GIFCoder().decode(data, options: ImageDecodeOptions())
        let expected = try (0..<sequential.frameCount).map { try sequential.frame(at: $0) }
        let provider = try #require(try GIFCoder().animatedImageProvider(for: data, options: ImageDecodeOptions()))
        let count = provider.frameCount
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var bad = 0
                    for step in 0..<16 {
                        let index = (task * 3 + step * 5) % count
                        if try provider.frame(at: index) != expected[index] { bad += 1 }
                    }
                    return bad
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
