import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersPNG

@Suite("PNG read size", .dedicatedThreads)
struct PNGReadSizeTests {
    @Test("A file ending with a whole IEND is read in libpng's own pieces; one cut short, in small pieces from the start")
    func readSizeFollowsTheEnd() throws {
        let data = try Corpus.data("pngsuite", "basn6a16.png")
        #expect(PNGDecoder.readSize(for: data) == nil)
        for length in [data.count / 2, data.count - 1, data.count - 6, 8, 0] {
            #expect(PNGDecoder.readSize(for: data.prefix(length)) == PNGDecoder.cutFileReadSize, "cut at \(length)")
        }
        // A slice of a larger buffer is judged by its own end.
        var padded = Data([1, 2, 3]) + data + Data([9])
        padded = padded.dropFirst(3).dropLast()
        #expect(PNGDecoder.readSize(for: padded) == nil)
    }

    @Test("Small pieces from the start show every row before the cut, as the read-again path did, and a whole file is unchanged")
    func cutFileKeepsItsRows() throws {
        let data = try Corpus.data("pngsuite", "basn6a16.png")
        let whole = try PNGDecoder.decode(data, options: ImageDecodeOptions())
        // Every byte of image data present is inflated: each cut shows at least the rows an
        // earlier cut showed, and a cut inside IEND shows them all.
        var shown = 0
        for length in stride(from: data.count / 4, through: data.count - 1, by: data.count / 8) {
            let image = try PNGDecoder.decode(data.prefix(length), options: ImageDecodeOptions())
            let rows = image.firstFrame.bytes.count / image.firstFrame.bytesPerRow
            let warning = try #require(image.metadata.warnings.first)
            let decoded = warning.message.hasSuffix("after the last row") ? rows : try #require(Int(warning.message.split(separator: " ")[4]))
            #expect(decoded >= shown, "cut at \(length)")
            shown = decoded
            let cut = image.firstFrame.bytesPerRow * decoded
            #expect(image.firstFrame.bytes.prefix(cut) == whole.firstFrame.bytes.prefix(cut))
        }
        #expect(try PNGDecoder.decode(data.prefix(data.count - 6), options: ImageDecodeOptions()).firstFrame == whole.firstFrame)
    }
}
