import Foundation
import Synchronization
@testable import PipelineCore

/// A clock tests move by hand, so expiry is tested without sleeping.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var cacheClock: CacheClock { CacheClock { [self] in self.now } }
}

/// A fresh directory under the system's temporary folder, removed when the test's scope ends.
final class TemporaryDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init(_ name: String = "cache") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("imagepipe-tests-\(getpid())-\(UUID().uuidString)", isDirectory: true)
            .appendingPathComponent(name, isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

    /// Names of the visible files in the directory but the cache's tag.
    var fileNames: [String] {
        allNames.filter { !$0.hasPrefix(".") && $0 != DiskCache.tagFileName }
    }

    /// Every name in the directory, hidden ones and the tag included.
    var allNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// The image format the test coder writes; images decoded from it report the format named in its
/// header, so tests can tell which format a cache chose to encode.
extension ImageFormat {
    static let testPixels = ImageFormat(identifier: "testpixels", mimeType: "application/x-test-pixels", fileExtensions: ["tpx"])
}

/// A tiny coder for cache tests (no real PNG or JPEG coder exists in the core): "TPX1", the format's
/// identifier length and bytes, pixel format, width, height, frame count, then the frames' bytes.
final class CacheTestCoder: ImageCoder {
    static let magic = Array("TPX1".utf8)
    let decodes = Atomic<Int>(0)
    let encodes = Atomic<Int>(0)
    let encodedFormats = Mutex<[ImageFormat]>([])

    func canDecode(_ data: Data) -> Bool { data.prefix(4).elementsEqual(Self.magic) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        decodes.add(1, ordering: .relaxed)
        let bytes = [UInt8](data)
        func fail() -> ImagePipeError { .badImageData(reason: "not a test pixel file") }
        guard bytes.count >= 5, canDecode(data) else { throw fail() }
        let nameLength = Int(bytes[4])
        var o = 5 + nameLength
        guard bytes.count >= o + 6 else { throw fail() }
        let name = String(decoding: bytes[5..<o], as: UTF8.self)
        let format = ImageFormat.named(name) ?? (name == ImageFormat.testPixels.identifier ? .testPixels : .undefined)
        let pixelFormat = PixelFormat.allCases[Int(bytes[o]) % PixelFormat.allCases.count]
        let width = Int(bytes[o + 1]), height = Int(bytes[o + 2]), frames = Int(bytes[o + 3])
        o += 4
        let frameBytes = width * height * pixelFormat.bytesPerPixel
        guard frames > 0, bytes.count == o + frames * frameBytes else { throw fail() }
        let buffers = try (0..<frames).map { i in
            try PixelBuffer(width: width, height: height, format: pixelFormat, bytes: Array(bytes[(o + i * frameBytes)..<(o + (i + 1) * frameBytes)]))
        }
        if buffers.count > 1, !options.firstFrameOnly {
            let provider = TestAnimation(data: data, format: format, frames: buffers)
            return Image(animation: try AnimatedImage(provider: provider))
        }
        return Image(buffers[0], format: format)
    }

    func canEncode(to format: ImageFormat) -> Bool { true }

    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        try encode(frames: try image.frames(), loopCount: image.loopCount, as: format, options: options)
    }

    func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        encodes.add(1, ordering: .relaxed)
        encodedFormats.withLock { $0.append(format) }
        return Self.file(frames.map(\.buffer), format: format)
    }

    /// The bytes of a test pixel file.
    static func file(_ frames: [PixelBuffer], format: ImageFormat = .testPixels) -> Data {
        let first = frames[0]
        let name = Array(format.identifier.utf8)
        var bytes = magic + [UInt8(name.count)] + name
        bytes += [UInt8(PixelFormat.allCases.firstIndex(of: first.format)!), UInt8(first.width), UInt8(first.height), UInt8(frames.count)]
        for frame in frames { bytes += frame.bytes }
        return Data(bytes)
    }
}

struct TestAnimation: AnimatedImageProvider {
    let data: Data
    let format: ImageFormat
    let frames: [PixelBuffer]
    var canvasSize: ImageSize { frames[0].size }
    var pixelFormat: PixelFormat { frames[0].format }
    var frameCount: Int { frames.count }
    var loopCount: Int { 0 }
    func duration(at index: Int) -> Double { 0.1 }
    func frame(at index: Int) throws -> PixelBuffer { frames[index] }
}

enum TestImages {
    static func buffer(_ width: Int = 4, _ height: Int = 3, format: PixelFormat = .rgb8, value: UInt8 = 7) -> PixelBuffer {
        try! PixelBuffer(width: width, height: height, format: format, bytes: [UInt8](repeating: value, count: width * height * format.bytesPerPixel))
    }

    static func still(_ width: Int = 4, _ height: Int = 3, format: PixelFormat = .rgb8, imageFormat: ImageFormat = .undefined) -> Image {
        Image(buffer(width, height, format: format), format: imageFormat)
    }

    static func animated(frames: Int = 3, format: ImageFormat = .gif) -> Image {
        let buffers = (0..<frames).map { buffer(value: UInt8($0)) }
        let provider = TestAnimation(data: CacheTestCoder.file(buffers, format: format), format: format, frames: buffers)
        return Image(animation: try! AnimatedImage(provider: provider))
    }
}
