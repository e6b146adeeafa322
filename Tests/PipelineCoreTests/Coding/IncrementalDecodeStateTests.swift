import Foundation
import Testing

@testable import PipelineCore

@Suite("Incremental decode state")
struct IncrementalDecodeStateTests {
    /// A format's progress in these tests: every byte range it was fed.
    struct Fed { var ranges: [Range<Int>] = [] }

    struct Boom: Error, Equatable {}

    let image = Image(try! PixelBuffer(width: 2, height: 1, format: .gray8, bytes: [0, 255]))

    private func feedRecording(_ progress: inout Fed?, _ data: Data, _ fed: Int) -> Bool {
        progress = progress ?? Fed()
        progress!.ranges.append(fed..<data.count)
        return true
    }

    @Test("Only bytes not fed before reach the format, and a declined feed is offered again")
    func feedsNewBytesOnly() throws {
        var state = IncrementalDecodeState<Fed>()
        var offered: [Int] = []
        for count in [3, 3, 2, 8, 12] {
            state.update(Data(count: count), isComplete: false, decodeComplete: { _ in image }) { progress, data, fed in
                offered.append(fed)
                // Declines the first call (a header not yet whole), so those bytes come again.
                if offered.count == 1 { return false }
                return feedRecording(&progress, data, fed)
            }
        }
        #expect(offered == [0, 0, 3, 8], "the 2-byte update has nothing new and is not offered")
        #expect(state.progress?.ranges == [0..<3, 3..<8, 8..<12])
        #expect(try state.currentImage { _ in image }?.pixelSize == ImageSize(width: 2, height: 1))
    }

    @Test("An error while feeding is final until the complete bytes decide")
    func failureIsFinal() throws {
        var state = IncrementalDecodeState<Fed>()
        state.update(Data(count: 4), isComplete: false, decodeComplete: { _ in image }) { _, _, _ in throw Boom() }
        var fedAgain = false
        state.update(Data(count: 8), isComplete: false, decodeComplete: { _ in image }) { _, _, _ in
            fedAgain = true
            return true
        }
        #expect(!fedAgain)
        #expect(state.progress == nil)
        #expect(throws: Boom.self) { try state.currentImage { _ in image } }
        state.update(Data(count: 9), isComplete: true, decodeComplete: { _ in image }) { _, _, _ in true }
        #expect(try state.currentImage { _ in nil }?.pixelSize == ImageSize(width: 2, height: 1))
    }

    @Test("Complete bytes are decoded once, one-shot, and nothing changes the result afterwards")
    func finalIsOneShot() throws {
        var state = IncrementalDecodeState<Fed>()
        state.update(Data(count: 4), isComplete: false, decodeComplete: { _ in image }) { feedRecording(&$0, $1, $2) }
        var decodes = 0
        state.update(
            Data(count: 10), isComplete: true,
            decodeComplete: { data in
                decodes += 1
                #expect(data.count == 10)
                throw Boom()
            }
        ) { _, _, _ in true }
        state.update(
            Data(count: 10), isComplete: true,
            decodeComplete: { _ in
                decodes += 1
                return image
            }
        ) { _, _, _ in true }
        #expect(decodes == 1)
        #expect(state.progress == nil, "the partial decoder is released once the result is final")
        #expect(throws: Boom.self) { try state.currentImage { _ in image } }
    }

    @Test("Before anything is fed there is nothing to show")
    func nothingYet() throws {
        var state = IncrementalDecodeState<Fed>()
        #expect(try state.currentImage { _ in image } == nil)
    }
}
