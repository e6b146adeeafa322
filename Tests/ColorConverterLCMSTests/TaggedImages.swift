import CodersJPEG
import CodersPNG
import CodersWebP
import Foundation
import PipelineCore
import TestSupport

/// Flat patches encoded by ImagePipe's own coders, then tagged with a profile by `ColorFixtures`.
enum TaggedImages {
    static let width = 24, height = 16

    static func patch(_ pixel: [UInt8]) throws -> Image {
        let format: PixelFormat = pixel.count == 1 ? .gray8 : .rgb8
        return Image(
            try PixelBuffer(
                width: width, height: height, format: format,
                bytes: Array((0..<width * height).map { _ in pixel }.joined())))
    }

    static func jpeg(_ pixel: [UInt8], profile: Data, segmentBytes: Int = 65_519) throws -> Data {
        var options = ImageEncodeOptions(quality: 1)
        options.extras[.jpegChromaSubsampling] = .yuv444
        let plain = try JPEGCoder().encode(try patch(pixel), as: .jpeg, options: options)
        return ColorFixtures.jpeg(plain, embedding: profile, segmentBytes: segmentBytes)
    }

    static func png(_ pixel: [UInt8], profile: Data) throws -> Data {
        ColorFixtures.png(try PNGCoder().encode(try patch(pixel), as: .png, options: ImageEncodeOptions()), embedding: profile)
    }

    static func webP(_ pixel: [UInt8], profile: Data) throws -> Data {
        let plain = try WebPCoder().encode(try patch(pixel), as: .webp, options: ImageEncodeOptions(lossless: true))
        return ColorFixtures.webP(plain, embedding: profile, width: width, height: height)
    }

    static func tagged(_ format: ImageFormat, _ pixel: [UInt8], profile: Data) throws -> Data {
        switch format {
        case .jpeg: try jpeg(pixel, profile: profile)
        case .png: try png(pixel, profile: profile)
        default: try webP(pixel, profile: profile)
        }
    }

    static let coders = ImageCodersManager(coders: [JPEGCoder(), PNGCoder(), WebPCoder()])

    /// Decodes as the pipeline does, with only `converters` registered.
    static func decode(
        _ data: Data, options: ImageDecodeOptions = ImageDecodeOptions(),
        converters: ImageColorConvertersManager
    ) throws -> Image {
        try coders.decodeImage(data, options: options, colorConverters: converters)
    }

    /// The centre pixel's channels.
    static func centre(_ image: Image) -> [UInt8] {
        let buffer = image.firstFrame
        let offset = ((buffer.height / 2) * buffer.width + buffer.width / 2) * buffer.format.bytesPerPixel
        return Array(buffer.bytes[offset..<offset + buffer.format.bytesPerPixel])
    }

    static func isClose(_ a: [UInt8], _ b: [UInt8], within tolerance: Int = 3) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }
}
