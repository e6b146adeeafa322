import CodersGIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// How a GIF's records become frames, as giflib, browsers, ImageIO and Pillow read them, on small
/// files written byte by byte.
@Suite("GIF index", .dedicatedThreads)
struct GIFIndexTests {
    let coder = GIFCoder()

    /// A 1 x 1 GIF89a writer: palette index 0 red, 1 blue.
    struct Writer {
        var bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [255, 0, 0, 0, 0, 255]

        /// A NETSCAPE2.0 loop extension.
        mutating func loop(_ count: Int) {
            bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(count & 0xFF), UInt8(count >> 8), 0]
        }

        /// A comment extension with these sub-blocks (none: the terminator alone).
        mutating func comment(_ subBlocks: [String] = []) {
            bytes += [0x21, 0xFE]
            for text in subBlocks { bytes += [UInt8(text.utf8.count)] + Array(text.utf8) }
            bytes.append(0)
        }

        /// One image block of palette index `color`, after a graphic control extension with
        /// `delay` centiseconds (none when nil).
        mutating func image(color: UInt8, delay: Int?) {
            if let delay { bytes += [0x21, 0xF9, 4, 0, UInt8(delay & 0xFF), UInt8(delay >> 8), 0, 0] }
            // Descriptor, then LZW with 2-bit codes: clear, the index, end (the classic 1 x 1 data).
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, color == 0 ? 0x44 : 0x4C, 0x01, 0]
        }

        var data: Data { Data(bytes + [0x3B]) }
    }

    static let red = ImageColor(red: 255, green: 0, blue: 0)
    static let blue = ImageColor(red: 0, green: 0, blue: 255)

    func colors(_ image: Image) throws -> [ImageColor] {
        try (0..<image.frameCount).map { try image.frame(at: $0).color(x: 0, y: 0) }
    }

    @Test("A block with a zero or missing delay is its own frame, shown 100 ms, never merged into the next")
    func zeroAndMissingDelays() throws {
        var gif = Writer()
        gif.image(color: 0, delay: 0)
        gif.image(color: 1, delay: nil)
        gif.image(color: 0, delay: 50)
        gif.image(color: 1, delay: 1)
        let image = try coder.decode(gif.data, options: ImageDecodeOptions())
        #expect(image.frameCount == 4)
        #expect(try colors(image) == [Self.red, Self.blue, Self.red, Self.blue])
        #expect((0..<4).map { image.duration(at: $0) } == [0.1, 0.1, 0.5, 0.1])
    }

    @Test("Two blocks without any graphic control extension or loop extension are two frames")
    func blocksWithoutExtensions() throws {
        var gif = Writer()
        gif.image(color: 1, delay: nil)
        gif.image(color: 0, delay: nil)
        let image = try coder.decode(gif.data, options: ImageDecodeOptions())
        #expect(image.frameCount == 2)
        #expect(try colors(image) == [Self.blue, Self.red])
        #expect(image.loopCount == 1, "no NETSCAPE2.0: plays once (SDWebImage)")
    }

    @Test("A GIF with a screen but no image fails with badImageData")
    func noImage() throws {
        var gif = Writer()
        gif.loop(0)
        gif.comment(["nothing to see"])
        #expect(throws: ImagePipeError.badImageData(reason: "GIF has no image")) { try coder.decode(gif.data, options: ImageDecodeOptions()) }
        #expect(throws: ImagePipeError.badImageData(reason: "GIF has no image")) { try coder.decode(Writer().data, options: ImageDecodeOptions()) }
        #expect(throws: ImagePipeError.self) { try coder.animatedImageProvider(for: Writer().data, options: ImageDecodeOptions()) }
    }

    @Test("An empty comment (no sub-block) is valid: the records after it are read as they are")
    func emptyComment() throws {
        var gif = Writer()
        gif.comment()
        gif.image(color: 1, delay: 20)
        gif.comment()
        gif.comment(["x"])
        gif.image(color: 0, delay: 30)
        let image = try coder.decode(gif.data, options: ImageDecodeOptions())
        #expect(image.frameCount == 2)
        #expect(try colors(image) == [Self.blue, Self.red])
        #expect((0..<2).map { image.duration(at: $0) } == [0.2, 0.3])
        var still = Writer()
        still.comment()
        still.image(color: 1, delay: nil)
        #expect(try coder.decode(still.data, options: ImageDecodeOptions()).firstFrame.color(x: 0, y: 0) == Self.blue)
    }

    @Test("Of two NETSCAPE2.0 loop extensions the first counts")
    func firstLoopCountWins() throws {
        var gif = Writer()
        gif.loop(3)
        gif.image(color: 0, delay: 10)
        gif.loop(7)
        gif.image(color: 1, delay: 10)
        #expect(try coder.decode(gif.data, options: ImageDecodeOptions()).loopCount == 3)
        var forever = Writer()
        forever.loop(0)
        forever.loop(5)
        forever.image(color: 0, delay: 10)
        forever.image(color: 1, delay: 10)
        #expect(try coder.decode(forever.data, options: ImageDecodeOptions()).loopCount == 0)
    }

    @Test("A first-frame-only decode reads nothing after the first image: a broken record after it does not fail it")
    func firstFrameOnlyStopsAtFirstImage() throws {
        var gif = Writer()
        gif.loop(0)
        gif.image(color: 0, delay: 10)
        gif.image(color: 1, delay: 10)
        gif.bytes += [0x99, 1, 2, 3]  // no record starts with 0x99
        #expect(throws: ImagePipeError.self) { try coder.decode(gif.data, options: ImageDecodeOptions()) }
        let still = try coder.decode(gif.data, options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(still.frameCount == 1 && !still.isAnimated)
        #expect(still.firstFrame.color(x: 0, y: 0) == Self.red)
        // What follows the first image was not read, so it may hold metadata: the file's bytes
        // do not stand for the still image.
        #expect(still.metadata.hasUnreadMetadata)
        #expect(try coder.animatedImageProvider(for: gif.data, options: ImageDecodeOptions(firstFrameOnly: true)) == nil)
    }

    @Test("A first-frame-only decode of a still GIF that ends in its trailer has no unread metadata")
    func firstFrameOnlyOfStill() throws {
        var gif = Writer()
        gif.image(color: 1, delay: nil)
        let still = try coder.decode(gif.data, options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(still.firstFrame.color(x: 0, y: 0) == Self.blue)
        #expect(!still.metadata.hasUnreadMetadata)
        #expect(!(try coder.decode(gif.data, options: ImageDecodeOptions())).metadata.hasUnreadMetadata)
    }

    @Test("A first-frame-only thumbnail of an animation is the full decode's first frame")
    func firstFrameOnlyThumbnailMatches() throws {
        let gif = HostileAnimations.gif(frames: 40, width: 64, height: 48, rect: 8)
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 32, height: 32))
        var firstOnly = options
        firstOnly.firstFrameOnly = true
        let full = try coder.decode(gif, options: options)
        let still = try coder.decode(gif, options: firstOnly)
        #expect(full.frameCount == 40 && still.frameCount == 1)
        #expect(try still.firstFrame == full.frame(at: 0))
    }
}
