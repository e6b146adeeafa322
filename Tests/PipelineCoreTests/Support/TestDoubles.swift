import Foundation
import Synchronization
@testable import PipelineCore
import TestSupport

/// A format only the tests speak: `TIMG`, width and height as UInt16 big-endian, a pixel-format
/// byte, then raw pixels. Enough to exercise registries and caches without a C library.
struct TestCoder: ImageCoder {
    static let format = ImageFormat(identifier: "timg", mimeType: "image/x-test", fileExtensions: ["timg"])
    let name: String
    /// Whether it claims every input (like SDWebImage's catch-all ImageIO coder).
    var claimsEverything = false
    let decodes = Counter()

    init(name: String = "test", claimsEverything: Bool = false) {
        self.name = name
        self.claimsEverything = claimsEverything
    }

    func canDecode(_ data: Data) -> Bool { claimsEverything || data.starts(with: Array("TIMG".utf8)) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        decodes.increment()
        let bytes = [UInt8](data)
        guard bytes.count >= 9, bytes.starts(with: Array("TIMG".utf8)),
              let format = PixelFormat.allCases.dropFirst(Int(bytes[8])).first
        else { throw ImagePipeError.badImageData(reason: "not a TIMG") }
        let size = ImageSize(width: Int(bytes[4]) << 8 | Int(bytes[5]), height: Int(bytes[6]) << 8 | Int(bytes[7]))
        try options.checkPixelLimit(size)
        var buffer = try PixelBuffer(width: size.width, height: size.height, format: format, bytes: Array(bytes[9...]))
        let target = options.targetSize(for: size)
        // Thumbnails keep the first pixel's colour: tests check sizes, and a real resample of large
        // test images in a debug build would only make the suite slow.
        if target != size { buffer = try PixelBuffer(width: target.width, height: target.height, format: format, fill: buffer.color(x: 0, y: 0)) }
        return Image(buffer, format: Self.format, scale: options.scaleFactor)
    }

    func canEncode(to format: ImageFormat) -> Bool { format == Self.format }

    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        Self.encode(image.firstFrame)
    }

    static func encode(_ buffer: PixelBuffer) -> Data {
        var out = Array("TIMG".utf8)
        out += [UInt8(buffer.width >> 8), UInt8(buffer.width & 0xFF), UInt8(buffer.height >> 8), UInt8(buffer.height & 0xFF)]
        out.append(UInt8(PixelFormat.allCases.firstIndex(of: buffer.format)!))
        return Data(out + buffer.bytes)
    }

    static func sample(width: Int = 4, height: Int = 3, color: ImageColor = .white) -> Data {
        encode(try! PixelBuffer(width: width, height: height, format: .rgba8, fill: color))
    }
}

/// A loader for one URL scheme that answers with fixed bytes and counts its loads.
struct CountingLoader: ImageLoader {
    let scheme: String
    let name: String
    let loads = Counter()

    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool { url.scheme == scheme }

    func load(_ url: URL, options: ImageOptions, context: ImageContext, progress: (@Sendable (ImageLoadProgress) -> Void)?) async throws -> ImageLoadResult {
        loads.increment()
        let data = Data(name.utf8)
        progress?(ImageLoadProgress(receivedBytes: Int64(data.count), expectedBytes: Int64(data.count)))
        return ImageLoadResult(data: data)
    }
}
