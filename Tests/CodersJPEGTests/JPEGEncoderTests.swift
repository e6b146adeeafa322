import CodersJPEG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("JPEG encoding", .dedicatedThreads)
struct JPEGEncoderTests {
    let coder = JPEGCoder()

    @Test("Encoding and decoding gives back nearly the same picture; higher quality is closer and larger")
    func roundTripAtQualities() throws {
        let source = try JPEGTestImages.gradient(width: 160, height: 120, format: .rgb8)
        var previous: (size: Int, mean: Double)?
        for quality in [0.3, 0.6, 0.9, 1.0] {
            let data = try coder.encode(Image(source), as: .jpeg, options: ImageEncodeOptions(quality: quality))
            let decoded = try coder.decode(data, options: ImageDecodeOptions())
            #expect(decoded.pixelSize == source.size)
            let difference = JPEGTestImages.difference(decoded.firstFrame, source)
            #expect(difference.mean < 6, "quality \(quality): \(difference)")
            if let previous {
                #expect(data.count > previous.size)
                #expect(difference.mean <= previous.mean)
            }
            previous = (data.count, difference.mean)
        }
    }

    @Test("Progressive and 4:4:4 are chosen through extras and show in the written frame header")
    func progressiveAndSubsampling() throws {
        let source = try JPEGTestImages.gradient(width: 64, height: 48, format: .rgb8)
        var options = ImageEncodeOptions()
        let baseline = try #require(JPEGTestImages.frameHeader(of: coder.encode(Image(source), as: .jpeg, options: options)))
        #expect(baseline.marker == 0xC0)
        #expect(baseline.sampling == [0x22, 0x11, 0x11])
        options.extras[.jpegProgressive] = true
        options.extras[.jpegChromaSubsampling] = .yuv444
        let data = try coder.encode(Image(source), as: .jpeg, options: options)
        let progressive = try #require(JPEGTestImages.frameHeader(of: data))
        #expect(progressive.marker == 0xC2)
        #expect(progressive.sampling == [0x11, 0x11, 0x11])
        #expect(JPEGTestImages.difference(try coder.decode(data, options: ImageDecodeOptions()).firstFrame, source).mean < 3)
    }

    @Test("Transparent pixels are laid over the background colour; gray images stay gray")
    func backgroundAndGray() throws {
        let clear = try PixelBuffer(width: 16, height: 16, format: .rgba8, fill: .clear)
        let data = try coder.encode(Image(clear), as: .jpeg, options: ImageEncodeOptions(backgroundColor: ImageColor(red: 255, green: 0, blue: 0)))
        let pixel = try coder.decode(data, options: ImageDecodeOptions()).firstFrame.color(x: 8, y: 8)
        #expect(pixel.red > 240 && pixel.green < 15 && pixel.blue < 15, "\(pixel)")
        let gray = try JPEGTestImages.gradient(width: 32, height: 32, format: .gray8)
        let decoded = try coder.decode(coder.encode(Image(gray), as: .jpeg, options: ImageEncodeOptions()), options: ImageDecodeOptions())
        #expect(decoded.pixelFormat == .gray8)
    }

    @Test("maxPixelSize scales down first; maxFileSize lowers quality until the file fits")
    func sizeLimits() throws {
        let source = try JPEGTestImages.gradient(width: 400, height: 300, format: .rgb8)
        let small = try coder.encode(Image(source), as: .jpeg, options: ImageEncodeOptions(maxPixelSize: ImageSize(width: 100, height: 100)))
        #expect(try coder.decode(small, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 100, height: 75))
        let unlimited = try coder.encode(Image(source), as: .jpeg, options: ImageEncodeOptions(quality: 1))
        let limit = unlimited.count / 3
        let fitted = try coder.encode(Image(source), as: .jpeg, options: ImageEncodeOptions(quality: 1, maxFileSize: limit))
        #expect(fitted.count <= limit)
        #expect(fitted.count > limit / 3, "the search should keep the highest quality that fits")
        // Too small for any quality: the smallest file there is, still a decodable JPEG.
        let smallest = try coder.encode(Image(source), as: .jpeg, options: ImageEncodeOptions(maxFileSize: 10))
        #expect(smallest.count > 10 && smallest.count < fitted.count)
        #expect(try coder.decode(smallest, options: ImageDecodeOptions()).pixelSize == source.size)
    }
}
