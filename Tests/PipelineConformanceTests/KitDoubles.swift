import Foundation
import PipelineCore
import Synchronization

/// A correct coder for a tiny raw format (`RAWI` + UInt16 width, height + RGBA), with real thumbnails.
struct RawCoder: ImageCoder {
    static let format = ImageFormat(identifier: "rawi", mimeType: "image/x-rawi", fileExtensions: ["rawi"])

    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("RAWI".utf8)) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, canDecode(data) else { throw ImagePipeError.badImageData(reason: "not RAWI") }
        let size = ImageSize(width: Int(bytes[4]) << 8 | Int(bytes[5]), height: Int(bytes[6]) << 8 | Int(bytes[7]))
        try options.checkPixelLimit(size)
        let expected = try PixelBuffer.byteCount(width: size.width, height: size.height, format: .rgba8)
        guard bytes.count - 8 == expected else { throw ImagePipeError.badImageData(reason: "RAWI pixel data has \(bytes.count - 8) bytes, needs \(expected)") }
        var buffer = try PixelBuffer(width: size.width, height: size.height, format: .rgba8, bytes: Array(bytes[8...]))
        let target = options.targetSize(for: size)
        if target != size { buffer = buffer.resampled(to: target) }
        return Image(buffer, format: Self.format)
    }

    func canEncode(to format: ImageFormat) -> Bool { format == Self.format }

    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        let buffer = image.firstFrame.converted(to: .rgba8)
        return Data(Array("RAWI".utf8) + [UInt8(buffer.width >> 8), UInt8(buffer.width & 0xFF), UInt8(buffer.height >> 8), UInt8(buffer.height & 0xFF)] + buffer.bytes)
    }

    static func sample(width: Int = 12, height: Int = 8) throws -> Data {
        var pixels: [UInt8] = []
        for y in 0..<height { for x in 0..<width { pixels += [UInt8(x * 20 % 256), UInt8(y * 30 % 256), 99, 255] } }
        return try RawCoder().encode(Image(try PixelBuffer(width: width, height: height, format: .rgba8, bytes: pixels)), as: format, options: ImageEncodeOptions())
    }
}

/// Broken: `canDecode` decodes the whole file to decide.
struct DecodingSnifferCoder: ImageCoder {
    let base = RawCoder()
    func canDecode(_ data: Data) -> Bool { (try? base.decode(data, options: ImageDecodeOptions())) != nil }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image { try base.decode(data, options: options) }
    func canEncode(to format: ImageFormat) -> Bool { base.canEncode(to: format) }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { try base.encode(image, as: format, options: options) }
}

/// Broken: never returns on a truncated file (what an unchecked read loop does).
struct HangsOnTruncationCoder: ImageCoder {
    let base = RawCoder()
    func canDecode(_ data: Data) -> Bool { base.canDecode(data) || data.isEmpty }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        if data.count < 40 { while true { Thread.sleep(forTimeInterval: 0.05) } }
        return try base.decode(data, options: options)
    }
    func canEncode(to format: ImageFormat) -> Bool { base.canEncode(to: format) }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { try base.encode(image, as: format, options: options) }
}

/// Broken: ignores the pixel limit and the thumbnail box.
struct LimitlessCoder: ImageCoder {
    let base = RawCoder()
    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image { try base.decode(data, options: ImageDecodeOptions()) }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { throw ImagePipeError.encodingFailed(reason: "no") }
}

/// Broken: the key ignores the parameter.
struct ConstantKeyTransformer: ImageTransformer {
    let size: Int
    var key: String { "ConstantKey" }
    func transform(_ image: Image) throws -> Image { Image(image.firstFrame.resampled(to: ImageSize(width: size, height: size))) }
}

/// Broken: doubles the image's width but keeps the default `outputSize(for:)` (the input's size),
/// so the pixel limit would be checked against the wrong size.
struct UndeclaredSizeTransformer: PixelTransformer {
    var key: String { "UndeclaredSize" }
    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer { buffer.resampled(to: ImageSize(width: buffer.width * 2, height: buffer.height)) }
}

/// Broken: answers with the first image ever stored under a key.
final class StaleCache: ImageCache {
    private let entries = Mutex<[String: Image]>([:])
    func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult? {
        entries.withLock { $0[key] }.map { ImageCacheResult(image: $0, data: nil, cacheType: .memory) }
    }
    func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async {
        guard let image else { return }
        entries.withLock { if $0[key] == nil { $0[key] = image } }
    }
    func remove(key: String, cacheType: ImageCacheType) async { _ = entries.withLock { $0.removeValue(forKey: key) } }
    func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType { entries.withLock { $0[key] != nil } ? .memory : .none }
    func clear(_ cacheType: ImageCacheType) async { entries.withLock { $0.removeAll() } }
}

/// Keeps one store for every level and answers any query from it: a `.disk` query answers with
/// what was stored in memory only.
final class LevelBlindCache: ImageCache {
    private let entries = Mutex<[String: Image]>([:])
    func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult? {
        guard cacheType != .none else { return nil }
        return entries.withLock { $0[key] }.map { ImageCacheResult(image: $0, data: nil, cacheType: cacheType == .all ? .memory : cacheType) }
    }
    func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async {
        guard let image, cacheType != .none else { return }
        entries.withLock { $0[key] = image }
    }
    func remove(key: String, cacheType: ImageCacheType) async { _ = entries.withLock { $0.removeValue(forKey: key) } }
    func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        entries.withLock { $0[key] != nil } && cacheType != .none ? (cacheType == .all ? .memory : cacheType) : .none
    }
    func clear(_ cacheType: ImageCacheType) async { entries.withLock { $0.removeAll() } }
}
