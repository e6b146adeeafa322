import CodersGIF
import CodersJPEG
import CodersJXL
import CodersPNG
import CodersWebP
import Foundation
import PipelineCore

/// Small seed images for the coder targets, made with ImagePipe's own encoders as the tests make
/// their fixtures: a few hundred bytes each, so one execution decodes a few hundred pixels and
/// mutations land on headers, segments and chunks rather than on kilobytes of entropy-coded data.
/// Together they cover what each target reads: baseline, progressive, 4:4:4, gray and odd-sized
/// JPEGs; lossy, lossless, alpha and animated WebPs; each with EXIF (orientation 6), XMP and an
/// ICC profile in one variant.
public enum FuzzSeeds {
    /// Seeds for `target`, by file name; empty for targets seeded from `Fuzz/seeds/` alone.
    public static func make(for target: FuzzTarget) throws -> [String: Data] {
        switch target {
        case .jpeg: try jpeg()
        case .webp: try webP()
        case .png: try png()
        case .gif: try gif()
        case .jxl: try jxl()
        case .svg: svg()
        case .avif, .heif, .tiff, .bmp, .transformSpec, .dataURL, .diskCacheName: [:]
        }
    }

    static func jpeg() throws -> [String: Data] {
        let coder = JPEGCoder()
        func encode(_ image: Image, progressive: Bool = false, yuv444: Bool = false, quality: Double = 0.5) throws -> Data {
            var options = ImageEncodeOptions(quality: quality)
            options.extras[.jpegProgressive] = progressive
            if yuv444 { options.extras[.jpegChromaSubsampling] = .yuv444 }
            return try coder.encode(image, as: .jpeg, options: options)
        }
        return [
            "baseline-16x16.jpg": try encode(Image(try gradient(16, 16, .rgb8))),
            "baseline-odd-17x9.jpg": try encode(Image(try gradient(17, 9, .rgb8))),
            "yuv444-8x8.jpg": try encode(Image(try gradient(8, 8, .rgb8)), yuv444: true),
            "progressive-24x16.jpg": try encode(Image(try gradient(24, 16, .rgb8)), progressive: true, quality: 0.9),
            "gray-16x8.jpg": try encode(Image(try gradient(16, 8, .gray8))),
            "gray-progressive-8x8.jpg": try encode(Image(try gradient(8, 8, .gray8)), progressive: true),
            "metadata-16x8.jpg": try encode(withMetadata(try gradient(16, 8, .rgb8))),
        ]
    }

    static func webP() throws -> [String: Data] {
        let coder = WebPCoder()
        func encode(_ image: Image, lossless: Bool = false) throws -> Data {
            try coder.encode(image, as: .webp, options: ImageEncodeOptions(quality: 0.5, lossless: lossless))
        }
        func animate(_ format: PixelFormat, lossless: Bool) throws -> Data {
            let frames = try (0..<3).map { ImageFrame(try gradient(12, 8, format, shift: $0 * 40), duration: [0.1, 0, 0.05][$0]) }
            return try coder.encode(frames: frames, loopCount: 2, as: .webp, options: ImageEncodeOptions(quality: 0.5, lossless: lossless))
        }
        return [
            "lossy-16x16.webp": try encode(Image(try gradient(16, 16, .rgb8))),
            "lossy-alpha-12x8.webp": try encode(Image(try gradient(12, 8, .rgba8))),
            "lossless-16x8.webp": try encode(Image(try gradient(16, 8, .rgb8)), lossless: true),
            "lossless-alpha-8x8.webp": try encode(Image(try gradient(8, 8, .rgba8)), lossless: true),
            "animated-lossy-12x8.webp": try animate(.rgba8, lossless: false),
            "animated-lossless-12x8.webp": try animate(.rgb8, lossless: true),
            "metadata-16x8.webp": try encode(withMetadata(try gradient(16, 8, .rgb8))),
        ]
    }

    static func jxl() throws -> [String: Data] {
        let coder = JXLCoder()
        func encode(_ image: Image, lossless: Bool = false) throws -> Data {
            var options = ImageEncodeOptions(quality: 0.5, lossless: lossless)
            options.extras[.jxlEffort] = 3
            return try coder.encode(image, as: .jxl, options: options)
        }
        let frames = try (0..<3).map { ImageFrame(try gradient(12, 8, .rgba8, shift: $0 * 40), duration: [0.1, 0, 0.05][$0]) }
        return [
            "lossy-16x16.jxl": try encode(Image(try gradient(16, 16, .rgb8))),
            "lossy-alpha-12x8.jxl": try encode(Image(try gradient(12, 8, .rgba8))),
            "lossless-gray-8x8.jxl": try encode(Image(try gradient(8, 8, .gray8)), lossless: true),
            "lossless-alpha-8x8.jxl": try encode(Image(try gradient(8, 8, .grayAlpha8)), lossless: true),
            "animated-12x8.jxl": try coder.encode(frames: frames, loopCount: 2, as: .jxl, options: ImageEncodeOptions(quality: 0.5)),
            "metadata-16x8.jxl": try encode(withMetadata(try gradient(16, 8, .rgb8))),
        ]
    }

    /// Small documents over what librsvg reads: shapes, paths, gradients, a pattern, text, a
    /// `use`, a filter, CSS, an embedded `data:` image, entities.
    static func svg() -> [String: Data] {
        let documents = [
            "shapes.svg": ##"<svg xmlns="http://www.w3.org/2000/svg" width="16" height="12"><rect width="8" height="6" fill="red"/><circle cx="10" cy="6" r="4" fill-opacity=".5"/><path d="M0 12 L8 2 Q 12 0 16 12 z" stroke="#00f"/></svg>"##,
            "gradient.svg":
                ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><radialGradient id="g"><stop offset="0" stop-color="#f80"/><stop offset="1" stop-opacity="0"/></radialGradient><pattern id="p" width="2" height="2" patternUnits="userSpaceOnUse"><rect width="1" height="1"/></pattern></defs><rect width="10" height="5" fill="url(#g)"/><rect y="5" width="10" height="5" fill="url(#p)"/></svg>"##,
            "use-filter.svg":
                ##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="12" height="12"><defs><filter id="f"><feGaussianBlur stdDeviation="1"/></filter><g id="a"><rect width="4" height="4"/></g></defs><use xlink:href="#a" x="2" filter="url(#f)"/><text x="1" y="11" font-size="4">Ab</text></svg>"##,
            "css-entity.svg":
                ##"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY c "#0a0">]><svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><style>rect { fill: &c; }</style><rect width="8" height="8"/><image width="2" height="2" href="data:image/gif;base64,R0lGODlhAQABAAAAACw="/></svg>"##,
        ]
        return documents.mapValues { Data($0.utf8) }
    }

    static func png() throws -> [String: Data] {
        let coder = PNGCoder()
        return try [
            "rgba-8x8.png": coder.encode(Image(try gradient(8, 8, .rgba8)), as: .png, options: ImageEncodeOptions()),
            "metadata-8x8.png": coder.encode(withMetadata(try gradient(8, 8, .rgb8)), as: .png, options: ImageEncodeOptions()),
        ]
    }

    static func gif() throws -> [String: Data] {
        let frames = try (0..<3).map { ImageFrame(try gradient(8, 8, .rgba8, shift: $0 * 60), duration: 0.1) }
        return ["animated-8x8.gif": try GIFCoder().encode(frames: frames, loopCount: 0, as: .gif, options: ImageEncodeOptions())]
    }

    /// A `width`×`height` gradient, a different one for each `shift`; alpha fades along the rows.
    static func gradient(_ width: Int, _ height: Int, _ format: PixelFormat, shift: Int = 0) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * format.bytesPerPixel)
        for y in 0..<height {
            for x in 0..<width {
                let red = UInt8(truncatingIfNeeded: x * 255 / max(width - 1, 1) + shift)
                let green = UInt8(truncatingIfNeeded: y * 255 / max(height - 1, 1))
                let blue = UInt8(truncatingIfNeeded: (x + y) * 16 + shift)
                let alpha = UInt8(truncatingIfNeeded: 255 - y * 255 / max(height - 1, 1) / 2)
                switch format {
                case .gray8: bytes += [green]
                case .grayAlpha8: bytes += [green, alpha]
                case .rgb8: bytes += [red, green, blue]
                case .rgba8: bytes += [red, green, blue, alpha]
                }
            }
        }
        return try PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    /// `buffer` carrying EXIF (orientation 6 and a GPS IFD), an XMP packet and an ICC profile
    /// header, which the encoders write as the format places them.
    static func withMetadata(_ buffer: PixelBuffer) -> Image {
        Image(buffer, metadata: ImageMetadata(colorProfile: .icc(Data(iccHeader)), exif: Data(exif), xmp: Data(xmp.utf8)))
    }

    /// A little-endian TIFF structure: IFD0 with Orientation 6 and a GPS IFD pointer; the GPS IFD
    /// with GPSLatitudeRef "N".
    static let exif: [UInt8] = {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16) }
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        bytes += le16(2)
        bytes += le16(0x0112) + le16(3) + le32(1) + le16(6) + [0, 0]
        bytes += le16(0x8825) + le16(4) + le32(1) + le32(8 + 2 + 2 * 12 + 4)
        bytes += le32(0)
        bytes += le16(1)
        bytes += le16(0x0001) + le16(2) + le32(2) + Array("N".utf8) + [0, 0, 0]
        bytes += le32(0)
        return bytes
    }()

    static let xmp = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""\
         xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:rights>seed</dc:rights></rdf:Description>\
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """

    /// An ICC profile header (128 bytes) and an empty tag table, declaring an RGB display profile:
    /// enough for the coders' profile segments and chunks, which do not read the tags.
    static let iccHeader: [UInt8] = {
        var bytes = [UInt8](repeating: 0, count: 132)
        bytes[3] = 132
        bytes.replaceSubrange(12..<16, with: Array("mntr".utf8))
        bytes.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        bytes.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        bytes.replaceSubrange(36..<40, with: Array("acsp".utf8))
        bytes[8] = 4
        bytes[10] = 0x30
        return bytes
    }()
}
