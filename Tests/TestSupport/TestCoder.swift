import Foundation
import PipelineCore
import Synchronization

/// The tests' `ImageCoder`, for a file format only the tests speak, so registries, caches and the
/// manager are exercised without a C library: `TIMG`, width and height as UInt16 big-endian, the
/// pixel format's index, the frame count, the length and bytes of the identifier of the image
/// format the file says it holds, then each frame's pixels. A file of several frames decodes as an
/// animation unless the options ask for the first frame only; then its first frame is all it needs
/// (`firstFrameExtent(of:)` says where it ends, and a decode takes a file cut after it).
public struct TestCoder: ImageCoder {
    public static let format = ImageFormat(identifier: "timg", mimeType: "image/x-test", fileExtensions: ["timg"])
    static let magic = Array("TIMG".utf8)

    public let name: String
    /// Whether it claims every input (like SDWebImage's catch-all ImageIO coder).
    public let claimsEverything: Bool
    /// Whether it writes every format (named in the file) rather than TIMG alone, as a cache's
    /// encoder must, so tests can tell which format a cache chose.
    public let encodesEveryFormat: Bool
    public let decodes = Counter()
    public let encodes = Counter()
    private let formats = Formats()

    public init(name: String = "test", claimsEverything: Bool = false, encodesEveryFormat: Bool = false) {
        self.name = name
        self.claimsEverything = claimsEverything
        self.encodesEveryFormat = encodesEveryFormat
    }

    /// The formats it was asked to encode, in order.
    public var encodedFormats: [ImageFormat] { formats.list.withLock { $0 } }

    public func canDecode(_ data: Data) -> Bool { claimsEverything || data.starts(with: Self.magic) }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        decodes.increment()
        let bytes = [UInt8](data)
        func fail() -> ImagePipeError { .badImageData(reason: "not a TIMG") }
        guard bytes.count >= 11, bytes.starts(with: Self.magic),
            let pixelFormat = PixelFormat.allCases.dropFirst(Int(bytes[8])).first
        else { throw fail() }
        let size = ImageSize(width: Int(bytes[4]) << 8 | Int(bytes[5]), height: Int(bytes[6]) << 8 | Int(bytes[7]))
        let frameCount = Int(bytes[9]), nameEnd = 11 + Int(bytes[10])
        guard frameCount > 0, bytes.count >= nameEnd else { throw fail() }
        let identifier = String(decoding: bytes[11..<nameEnd], as: UTF8.self)
        let format = ImageFormat.named(identifier) ?? ImageFormat(identifier: identifier, mimeType: "image/x-test", fileExtensions: [])
        try options.checkPixelLimit(size)
        let frameBytes = size.width * size.height * pixelFormat.bytesPerPixel
        let whole = bytes.count == nameEnd + frameCount * frameBytes
        guard whole || options.firstFrameOnly && bytes.count >= nameEnd + frameBytes else { throw fail() }
        var frames = try (0..<(whole ? frameCount : 1)).map { index in
            let start = nameEnd + index * frameBytes
            return try PixelBuffer(width: size.width, height: size.height, format: pixelFormat, bytes: Array(bytes[start..<(start + frameBytes)]))
        }
        if frames.count > 1, !options.firstFrameOnly {
            return Image(animation: try AnimatedImage(provider: TestAnimation(data: data, format: format, frames: frames)))
        }
        // Thumbnails keep the first pixel's colour: tests check sizes, and a real resample of large
        // test images in a debug build would only make the suite slow.
        let target = options.targetSize(for: size)
        if target != size {
            frames[0] = try PixelBuffer(width: target.width, height: target.height, format: pixelFormat, fill: frames[0].color(x: 0, y: 0))
        }
        return Image(frames[0], format: format, scale: options.scaleFactor)
    }

    /// The end of the first frame's pixels, once the header is in.
    public func firstFrameExtent(of prefix: Data) -> ImageFirstFrameExtent {
        let bytes = [UInt8](prefix.prefix(11 + 255))
        guard bytes.starts(with: Self.magic) else { return bytes.count < Self.magic.count ? .needsMoreBytes : .unknown }
        guard bytes.count >= 11, bytes.count >= 11 + Int(bytes[10]),
            let pixelFormat = PixelFormat.allCases.dropFirst(Int(bytes[8])).first
        else { return .needsMoreBytes }
        let frameBytes = (Int(bytes[4]) << 8 | Int(bytes[5])) * (Int(bytes[6]) << 8 | Int(bytes[7])) * pixelFormat.bytesPerPixel
        return .endsAt(11 + Int(bytes[10]) + frameBytes)
    }

    public func canEncode(to format: ImageFormat) -> Bool { encodesEveryFormat || format == Self.format }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        try encode(frames: try image.frames(), loopCount: image.loopCount, as: format, options: options)
    }

    public func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        encodes.increment()
        formats.list.withLock { $0.append(format) }
        return Self.file(frames.map(\.buffer), format: format)
    }

    /// The bytes of a TIMG file holding `frames`, which says it is `format`.
    public static func file(_ frames: [PixelBuffer], format: ImageFormat = TestCoder.format) -> Data {
        let first = frames[0]
        let identifier = Array(format.identifier.utf8)
        var bytes = magic + [UInt8(first.width >> 8), UInt8(first.width & 0xFF), UInt8(first.height >> 8), UInt8(first.height & 0xFF)]
        bytes += [UInt8(PixelFormat.allCases.firstIndex(of: first.format)!), UInt8(frames.count), UInt8(identifier.count)] + identifier
        for frame in frames { bytes += frame.bytes }
        return Data(bytes)
    }

    /// The bytes of a still TIMG file.
    public static func encode(_ buffer: PixelBuffer) -> Data { file([buffer]) }

    /// A still TIMG file of one colour.
    public static func sample(width: Int = 4, height: Int = 3, color: ImageColor = .white) -> Data {
        encode(try! PixelBuffer(width: width, height: height, format: .rgba8, fill: color))
    }

    private final class Formats: Sendable {
        let list = Mutex<[ImageFormat]>([])
    }
}

/// The frames of a decoded TIMG animation, or any frames a test hands over, 0.1 s each.
public struct TestAnimation: AnimatedImageProvider {
    public let data: Data
    public let format: ImageFormat
    public let frames: [PixelBuffer]

    public init(data: Data, format: ImageFormat, frames: [PixelBuffer]) {
        self.data = data
        self.format = format
        self.frames = frames
    }

    public var canvasSize: ImageSize { frames[0].size }
    public var pixelFormat: PixelFormat { frames[0].format }
    public var frameCount: Int { frames.count }
    public var loopCount: Int { 0 }
    public func duration(at index: Int) -> Double { 0.1 }
    public func frame(at index: Int) throws -> PixelBuffer { frames[index] }
}
