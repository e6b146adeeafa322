import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("APNG encoding", .dedicatedThreads)
struct APNGEncoderTests {
    /// Three distinct 5×3 RGBA frames with alpha, 40/70/100 ms.
    static func frames() throws -> [ImageFrame] {
        try [0, 1, 2].map { index in
            let pixels = (0..<15).flatMap { p -> [UInt8] in [UInt8(p * 10 + index), UInt8(index * 80), UInt8(255 - p), UInt8(128 + index * 60)] }
            return ImageFrame(try PixelBuffer(width: 5, height: 3, format: .rgba8, bytes: pixels), duration: [0.04, 0.07, 0.1][index])
        }
    }

    @Test("An animation encodes to an APNG that decodes to the same frames, delays and loop count")
    func roundTrip() throws {
        let frames = try Self.frames()
        let data = try PNGCoder().encode(frames: frames, loopCount: 4, as: .png, options: ImageEncodeOptions())
        let image = try PNGCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.frameCount == 3 && image.loopCount == 4)
        for index in 0..<3 {
            #expect(try image.frame(at: index) == frames[index].buffer)
            #expect(abs(image.duration(at: index) - frames[index].duration) < 1e-9)
        }
        // Re-encoding the decoded animation (the path `convert in.png out.png` takes) keeps it too.
        let again = try PNGCoder().decode(try PNGCoder().encode(image, as: .png, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(again.frameCount == 3 && again.loopCount == 4)
        #expect(try again.frame(at: 2) == frames[2].buffer)
    }

    @Test("The file follows the APNG layout: acTL, fcTL 0 before IDAT, then fcTL/fdAT with sequence numbers 0, 1, 2…, every CRC right")
    func layout() throws {
        let data = try PNGCoder().encode(frames: try Self.frames(), loopCount: 0, as: .png, options: ImageEncodeOptions())
        let file = PNGFileStructure(data)
        #expect(file.hasSignature && file.trailingBytes == 0)
        #expect(file.chunks.allSatisfy { $0.storedCRC == $0.computedCRC })
        #expect(file.chunks.map(\.type) == ["IHDR", "acTL", "fcTL", "IDAT", "fcTL", "fdAT", "fcTL", "fdAT", "IEND"])
        let sequenced = file.chunks.filter { $0.type == "fcTL" || $0.type == "fdAT" }
        #expect(sequenced.map { Int($0.payload[3]) } == Array(0..<5))
        let actl = file.chunks[1].payload
        #expect(actl == [0, 0, 0, 3, 0, 0, 0, 0])
        // Frame 1's delay: 70/1000 s, dispose none, blend source.
        #expect(Array(sequenced[1].payload[20...]) == [0, 70, 3, 232, 0, 0])
    }

    @Test(
        "Photo-like frames of each pixel format round-trip exactly (every row filter, undone by the quick frame path)",
        arguments: [PixelFormat.gray8, .rgb8, .rgba8])
    func photoFramesRoundTrip(format: PixelFormat) throws {
        let frames = try (0..<3).map { index in
            ImageFrame(try PNGTestImages.photo(width: 61 + index, height: 37, format: format).resampled(to: ImageSize(width: 61, height: 37)), duration: 0.05)
        }
        let data = try PNGCoder().encode(frames: frames, loopCount: 0, as: .png, options: ImageEncodeOptions())
        let file = PNGFileStructure(data)
        let filters = try #require(file.rowFilters(rowBytes: 61 * format.bytesPerPixel, height: 37))
        #expect(Set(filters).count >= 3, "the writer used filters \(Set(filters))")
        let image = try PNGCoder().decode(data, options: ImageDecodeOptions())
        for index in 0..<3 { #expect(try image.frame(at: index) == frames[index].buffer, "frame \(index)") }
    }

    @Test("Later frames store only the rectangle that changed, and still decode to their own pixels")
    func changedRectangles() throws {
        let base = try PNGTestImages.photo(width: 20, height: 12, format: .rgba8)
        var moved = base.bytes
        for y in 3..<5 { for x in 6..<9 { moved[(y * 20 + x) * 4] ^= 0x55 } }  // a 3×2 patch changes
        let frames = [
            ImageFrame(base, duration: 0.1), ImageFrame(try PixelBuffer(width: 20, height: 12, format: .rgba8, bytes: moved), duration: 0.1),
            ImageFrame(try PixelBuffer(width: 20, height: 12, format: .rgba8, bytes: moved), duration: 0.1),
        ]
        let data = try PNGCoder().encode(frames: frames, loopCount: 0, as: .png, options: ImageEncodeOptions())
        let controls = PNGFileStructure(data).chunks.filter { $0.type == "fcTL" }.map { Array($0.payload[4..<20]) }
        let rect = { (w: Int, h: Int, x: Int, y: Int) -> [UInt8] in [w, h, x, y].flatMap { APNGWriter.be32($0) } }
        #expect(controls == [rect(20, 12, 0, 0), rect(3, 2, 6, 3), rect(1, 1, 0, 0)])
        let image = try PNGCoder().decode(data, options: ImageDecodeOptions())
        for index in 0..<3 { #expect(try image.frame(at: index) == frames[index].buffer, "frame \(index)") }
    }

    @Test("Delays are written in ms, else hundredths, else seconds")
    func delayFractions() throws {
        let frames = try [0.05, 100.0, 1000.0].map { ImageFrame(try PixelBuffer(width: 1, height: 1, format: .rgb8, fill: .white), duration: $0) }
        let image = try PNGCoder().decode(try PNGCoder().encode(frames: frames, loopCount: 0, as: .png, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect((0..<3).map { image.duration(at: $0) } == [0.05, 100, 1000])
    }

    @Test("firstFrameOnly and single frames write a plain PNG")
    func stillWhenAsked() throws {
        var options = ImageEncodeOptions()
        options.firstFrameOnly = true
        let data = try PNGCoder().encode(frames: try Self.frames(), loopCount: 0, as: .png, options: options)
        #expect(!PNGFileStructure(data).chunks.contains { $0.type == "acTL" })
        #expect(!(try PNGCoder().decode(data, options: ImageDecodeOptions())).isAnimated)
    }
}
