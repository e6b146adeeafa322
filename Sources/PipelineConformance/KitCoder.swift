import Foundation
import PipelineCore

/// A trivial raw format the kit stores images in when checking caches, handed to the cache through
/// the context's `.imageCoder`, so a cache is checked without any real coder registered.
struct KitCoder: ImageCoder {
    static let format = ImageFormat(identifier: "ipkit", mimeType: "application/x-imagepipe-kit", fileExtensions: ["ipkit"])
    private static let magic = Array("IPKIT".utf8)

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        let bytes = [UInt8](data)
        guard bytes.count >= 13, bytes.starts(with: Self.magic), let format = PixelFormat.allCases.dropFirst(Int(bytes[12])).first else {
            throw ImagePipeError.badImageData(reason: "not an IPKIT image")
        }
        let width = bytes[5..<9].reduce(0) { $0 << 8 | Int($1) } >> 16
        let height = bytes[5..<9].reduce(0) { $0 << 8 | Int($1) } & 0xFFFF
        try options.checkPixelLimit(ImageSize(width: width, height: height))
        return Image(try PixelBuffer(width: width, height: height, format: format, bytes: Array(bytes[13...])), format: Self.format)
    }

    func canEncode(to format: ImageFormat) -> Bool { true }

    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        Self.encode(image.firstFrame)
    }

    static func encode(_ buffer: PixelBuffer) -> Data {
        var bytes = magic
        bytes += [UInt8(buffer.width >> 8 & 0xFF), UInt8(buffer.width & 0xFF), UInt8(buffer.height >> 8 & 0xFF), UInt8(buffer.height & 0xFF)]
        bytes += [0, 0, 0, UInt8(PixelFormat.allCases.firstIndex(of: buffer.format)!)]
        return Data(bytes + buffer.bytes)
    }
}
