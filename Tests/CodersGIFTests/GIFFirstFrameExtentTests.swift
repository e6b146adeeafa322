import CodersGIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Where a GIF's first frame ends (`GIFCoder.firstFrameExtent(of:)`), so a first-frame-only load
/// reads no further: the answer must cover all a first-frame decode reads, and nothing that makes a
/// decode of the whole file differ.
@Suite("GIF first-frame extent", .dedicatedThreads)
struct GIFFirstFrameExtentTests {
    let coder = GIFCoder()
    let firstFrameOnly = ImageDecodeOptions(firstFrameOnly: true)

    /// The extent read from the whole file, which must be a definite end.
    func end(of gif: Data) throws -> Int {
        guard case .endsAt(let end) = coder.firstFrameExtent(of: gif) else {
            Issue.record("no end found in \(gif.count) bytes")
            throw ImagePipeError.badImageData(reason: "no end")
        }
        return end
    }

    @Test("The first frame ends after its image data; every shorter prefix asks for more, and the prefix decodes as the file does")
    func endsAfterFirstImage() throws {
        var gif = GIFIndexTests.Writer()
        gif.loop(0)
        gif.comment(["hello"])
        gif.image(color: 0, delay: 10)
        let firstImageEnd = gif.bytes.count
        gif.image(color: 1, delay: 10)
        let data = gif.data
        #expect(try end(of: data) == firstImageEnd)
        for length in 13..<firstImageEnd {
            #expect(coder.firstFrameExtent(of: data.prefix(length)) == .needsMoreBytes, "prefix of \(length)")
        }
        let fromPrefix = try coder.decode(data.prefix(firstImageEnd), options: firstFrameOnly)
        let fromFile = try coder.decode(data, options: firstFrameOnly)
        #expect(fromPrefix.firstFrame == fromFile.firstFrame)
        #expect(fromPrefix.firstFrame.color(x: 0, y: 0) == GIFIndexTests.red)
    }

    @Test("A first frame behind large extension blocks is found however late it comes, and decodes from the prefix")
    func lateFirstFrame() throws {
        let animation = HostileAnimations.gif(frames: 6, width: 48, height: 32, rect: 8)
        let gif = GIFComments.inserting(300_000, into: animation, afterImages: 0)
        let end = try end(of: gif)
        #expect(end > 300_000 && end < gif.count)
        #expect(coder.firstFrameExtent(of: gif.prefix(200_000)) == .needsMoreBytes)
        let fromPrefix = try coder.decode(gif.prefix(end), options: firstFrameOnly)
        let full = try coder.decode(gif, options: ImageDecodeOptions())
        #expect(full.frameCount == 6)
        #expect(try fromPrefix.firstFrame == full.frame(at: 0))
    }

    @Test("A thumbnail of the first frame decoded from the prefix equals the full decode's first frame")
    func prefixThumbnailMatches() throws {
        let gif = GIFComments.inserting(100_000, into: HostileAnimations.gif(frames: 20, width: 64, height: 48, rect: 8), afterImages: 1)
        let end = try end(of: gif)
        #expect(end < 1000)
        var options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 32, height: 32))
        let full = try coder.decode(gif, options: options)
        options.firstFrameOnly = true
        let still = try coder.decode(gif.prefix(end), options: options)
        #expect(full.frameCount == 20 && still.frameCount == 1)
        #expect(try still.firstFrame == full.frame(at: 0))
    }

    @Test("Files the index reads specially are judged whole: an empty first block, no image, an unknown record, not a GIF")
    func specialFilesAreUnknown() {
        var empty = GIFIndexTests.Writer()
        empty.bytes += [0x2C, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0]
        empty.image(color: 0, delay: nil)
        var noImage = GIFIndexTests.Writer()
        noImage.comment(["x"])
        var unknown = GIFIndexTests.Writer()
        unknown.bytes += [0x99, 1, 2, 3]
        unknown.image(color: 0, delay: nil)
        for data in [empty.data, noImage.data, unknown.data, Data("PNG is not GIF at all".utf8)] {
            #expect(coder.firstFrameExtent(of: data) == .unknown)
        }
    }
}
