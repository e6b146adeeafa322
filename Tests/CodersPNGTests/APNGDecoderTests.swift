import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Animated PNGs made by TestSupport's independent writer, with the expected pixels worked out by
/// hand from the APNG rules.
@Suite("APNG decoding", .dedicatedThreads)
struct APNGDecoderTests {
    typealias Frame = APNGWriter.Frame
    static let blue: [UInt8] = [0, 0, 255, 255], red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255]
    static let halfRed: [UInt8] = [255, 0, 0, 128], clear: [UInt8] = [0, 0, 0, 0], white: [UInt8] = [255, 255, 255, 255]
    /// Half-transparent red over opaque blue: red 255·128/255 = 128, blue 255·127/255 = 127, opaque.
    static let halfRedOverBlue: [UInt8] = [128, 0, 127, 255]

    static func pixel(_ buffer: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let rgba = buffer.converted(to: .rgba8)
        let start = (y * rgba.width + x) * 4
        return Array(rgba.bytes[start..<start + 4])
    }

    /// A 4×4 blue canvas (frame 0, the IDAT image), a 2×2 half-transparent red square at 1,1 drawn
    /// with `blend` and disposed with `dispose`, then a 1×1 green pixel at 0,0.
    static func threeFrames(dispose: UInt8, blend: UInt8, firstDispose: UInt8 = 0) -> Data {
        APNGWriter.file(
            width: 4, height: 4,
            frames: [
                .filled(blue, width: 4, height: 4, dispose: firstDispose),
                .filled(halfRed, width: 2, height: 2, x: 1, y: 1, dispose: dispose, blend: blend),
                .filled(green, width: 1, height: 1),
            ])
    }

    static let combinations: [(dispose: UInt8, blend: UInt8)] = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]

    @Test("Each dispose/blend combination composites as the APNG rules say", arguments: combinations)
    func disposeAndBlend(dispose: UInt8, blend: UInt8) throws {
        let image = try PNGCoder().decode(Self.threeFrames(dispose: dispose, blend: blend), options: ImageDecodeOptions())
        #expect(image.isAnimated && image.frameCount == 3 && image.pixelSize == ImageSize(width: 4, height: 4))
        let drawn = blend == 0 ? Self.halfRed : Self.halfRedOverBlue
        // Asked out of order: frame 2 first, then 1, then 0.
        let frame2 = try image.frame(at: 2), frame1 = try image.frame(at: 1), frame0 = try image.frame(at: 0)
        #expect(Self.pixel(frame0, 1, 1) == Self.blue)
        #expect(Self.pixel(frame1, 1, 1) == drawn && Self.pixel(frame1, 2, 2) == drawn)
        #expect(Self.pixel(frame1, 0, 0) == Self.blue && Self.pixel(frame1, 3, 3) == Self.blue)
        let afterDisposal = [drawn, Self.clear, Self.blue][Int(dispose)]
        #expect(Self.pixel(frame2, 1, 1) == afterDisposal && Self.pixel(frame2, 2, 2) == afterDisposal)
        #expect(Self.pixel(frame2, 0, 0) == Self.green && Self.pixel(frame2, 3, 0) == Self.blue)
    }

    @Test("Frame 0 disposed to 'previous' is cleared to background: the next frame starts transparent")
    func firstFrameDisposedToPrevious() throws {
        let image = try PNGCoder().decode(Self.threeFrames(dispose: 0, blend: 1, firstDispose: 2), options: ImageDecodeOptions())
        let frame1 = try image.frame(at: 1)
        #expect(Self.pixel(frame1, 1, 1) == Self.halfRed)
        #expect(Self.pixel(frame1, 0, 0) == Self.clear)
    }

    @Test("A default image outside the animation is skipped: frames are the fcTL frames only")
    func defaultImageSkipped() throws {
        let file = APNGWriter.file(
            width: 2, height: 2, frames: [.filled(Self.red, width: 2, height: 2), .filled(Self.green, width: 2, height: 2)],
            defaultImage: Array([[UInt8]](repeating: Self.white, count: 4).joined()))
        let image = try PNGCoder().decode(file, options: ImageDecodeOptions())
        #expect(image.frameCount == 2)
        #expect(Self.pixel(try image.frame(at: 0), 0, 0) == Self.red)
        #expect(Self.pixel(try image.frame(at: 1), 1, 1) == Self.green)
        var firstOnly = ImageDecodeOptions()
        firstOnly.firstFrameOnly = true
        let still = try PNGCoder().decode(file, options: firstOnly)
        #expect(!still.isAnimated && Self.pixel(still.firstFrame, 0, 0) == Self.red)
    }

    @Test("One animation frame after a skipped default image decodes as a still of that frame")
    func singleFrameAfterDefaultImage() throws {
        let file = APNGWriter.file(
            width: 2, height: 2, frames: [.filled(Self.green, width: 2, height: 2)],
            defaultImage: Array([[UInt8]](repeating: Self.white, count: 4).joined()))
        let image = try PNGCoder().decode(file, options: ImageDecodeOptions())
        #expect(!image.isAnimated && Self.pixel(image.firstFrame, 1, 0) == Self.green)
    }

    @Test("An fdAT that carries its sequence number and no data is accepted: a frame's data is what its fdATs hold")
    func emptyFdAT() throws {
        var chunks = APNGWriter.chunks(
            width: 2, height: 2, frames: [.filled(Self.red, width: 2, height: 2), .filled(Self.green, width: 2, height: 2)])
        let fdat = try #require(chunks.firstIndex { $0.type == "fdAT" })
        // Split frame 1's data: an empty fdAT (sequence 2), then the data (sequence 3).
        var data = chunks[fdat]
        data.payload.replaceSubrange(0..<4, with: APNGWriter.be32(3))
        chunks[fdat].payload = APNGWriter.be32(2)
        chunks.insert(data, at: fdat + 1)
        let image = try PNGCoder().decode(APNGWriter.file(chunks), options: ImageDecodeOptions())
        #expect(image.frameCount == 2)
        #expect(image.metadata.warnings.isEmpty)
        #expect(Self.pixel(try image.frame(at: 1), 1, 1) == Self.green)
    }

    @Test("An acTL after the first fcTL but before the image data still makes the file animated")
    func acTLAfterFirstFcTL() throws {
        var chunks = APNGWriter.chunks(
            width: 2, height: 2, frames: [.filled(Self.red, width: 2, height: 2), .filled(Self.green, width: 2, height: 2)])
        let actl = chunks.remove(at: try #require(chunks.firstIndex { $0.type == "acTL" }))
        chunks.insert(actl, at: try #require(chunks.firstIndex { $0.type == "fcTL" }) + 1)
        #expect(chunks.map(\.type) == ["IHDR", "fcTL", "acTL", "IDAT", "fcTL", "fdAT", "IEND"])
        let image = try PNGCoder().decode(APNGWriter.file(chunks), options: ImageDecodeOptions())
        #expect(image.frameCount == 2)
        #expect(image.metadata.warnings.isEmpty)
        #expect(Self.pixel(try image.frame(at: 0), 0, 0) == Self.red)
        #expect(Self.pixel(try image.frame(at: 1), 1, 1) == Self.green)
    }

    @Test("acTL's play count is the loop count (0 = forever)", arguments: [UInt32(0), 1, 3, 65536])
    func loopCount(loops: UInt32) throws {
        let file = APNGWriter.file(width: 1, height: 1, frames: [.filled(Self.red, width: 1, height: 1), .filled(Self.blue, width: 1, height: 1)], loops: loops)
        #expect(try PNGCoder().decode(file, options: ImageDecodeOptions()).loopCount == Int(loops))
    }

    @Test("Delays are num/den seconds (den 0 = 100); 10 ms or less, zero included, plays 100 ms")
    func delays() throws {
        let delays: [(UInt16, UInt16)] = [(0, 0), (0, 100), (1, 100), (10, 1000), (11, 1000), (3, 0), (1, 0), (2, 1), (250, 1000)]
        let frames = delays.map { Frame.filled(Self.red, width: 1, height: 1, delay: $0) }
        let image = try PNGCoder().decode(APNGWriter.file(width: 1, height: 1, frames: frames), options: ImageDecodeOptions())
        let durations = (0..<image.frameCount).map { image.duration(at: $0) }
        #expect(durations == [0.1, 0.1, 0.1, 0.1, 0.011, 0.03, 0.1, 2, 0.25])
    }

    @Test("Thumbnails are taken of every composited frame")
    func thumbnails() throws {
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 2, height: 2))
        let image = try PNGCoder().decode(Self.threeFrames(dispose: 0, blend: 0), options: options)
        #expect(image.pixelSize == ImageSize(width: 2, height: 2) && image.frameCount == 3)
        for index in 0..<3 { #expect(try image.frame(at: index).size == ImageSize(width: 2, height: 2)) }
        #expect(Self.pixel(try image.frame(at: 0), 0, 0) == Self.blue)
    }

    @Test("An opaque animation of whole frames decodes to RGB frames, each its own pixels")
    func opaqueWholeFrames() throws {
        let frames = [[UInt8]([10, 20, 30]), [40, 50, 60], [70, 80, 90]].map { Frame.filled($0, width: 3, height: 2, blend: 1) }
        let image = try PNGCoder().decode(APNGWriter.file(width: 3, height: 2, channels: 3, frames: frames), options: ImageDecodeOptions())
        #expect(image.pixelFormat == .rgb8)
        #expect(try image.frame(at: 2).bytes == Array([[UInt8]](repeating: [70, 80, 90], count: 6).joined()))
    }

    @Test(
        "Frames decode to what libpng gives for the same rows: every filter, on the first row too, each pixel format",
        arguments: [(1, 0), (2, 4), (3, 2), (4, 6)])
    func framesMatchLibpng(channels: Int, colorType: Int) throws {
        let (width, height) = (13, 9)
        var seed: UInt32 = 12345
        let pixels = (0..<width * height * channels).map { _ -> UInt8 in
            seed = seed &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: seed >> 16)
        }
        let filterOrders: [[UInt8]] = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2], [3], [4]]
        for filters in filterOrders {
            let data = APNGWriter.compressed(pixels, width: width, height: height, channels: channels, filters: filters)
            let ihdr = APNGWriter.be32(width) + APNGWriter.be32(height) + [8, UInt8(colorType), 0, 0, 0]
            // The same rows as a still PNG (libpng) and as frame 1 of an animation (the quick path).
            let still = APNGWriter.file([.init("IHDR", ihdr), .init("IDAT", data), .init("IEND", [])])
            let fcTL = { (sequence: Int) in APNGWriter.be32(sequence) + APNGWriter.be32(width) + APNGWriter.be32(height) + [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0] }
            let animated = APNGWriter.file([
                .init("IHDR", ihdr), .init("acTL", APNGWriter.be32(2) + APNGWriter.be32(0)), .init("fcTL", fcTL(0)),
                .init("IDAT", data), .init("fcTL", fcTL(1)), .init("fdAT", APNGWriter.be32(2) + data), .init("IEND", []),
            ])
            let expected = try PNGCoder().decode(still, options: ImageDecodeOptions()).firstFrame
            let image = try PNGCoder().decode(animated, options: ImageDecodeOptions())
            #expect(image.frameCount == 2)
            #expect(try image.frame(at: 1) == expected.converted(to: image.pixelFormat), "filters \(filters)")
        }
    }

    @Test("firstFrameOnly gives frame 0 as a still; a plain PNG is unchanged")
    func firstFrameOnly() throws {
        var options = ImageDecodeOptions()
        options.firstFrameOnly = true
        let image = try PNGCoder().decode(Self.threeFrames(dispose: 0, blend: 0), options: options)
        #expect(!image.isAnimated && Self.pixel(image.firstFrame, 2, 2) == Self.blue)
        #expect(try PNGCoder().animatedImageProvider(for: Self.threeFrames(dispose: 0, blend: 0), options: ImageDecodeOptions())?.frameCount == 3)
    }
}
