import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersPNG

@Suite("PNG row streaming", .dedicatedThreads)
struct PNGRowStreamingTests {
    let coder = PNGCoder()

    /// Noise over a gradient: compressible enough to vary the deflate blocks' lengths, so the
    /// pieces the stream writer joins end at every bit position across the cases.
    static func pixels(width: Int, height: Int, format: PixelFormat, seed: UInt64) throws -> PixelBuffer {
        var state = seed | 1
        let count = width * height * format.bytesPerPixel
        let bytes = (0..<count).map { index -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: index / (width * format.bytesPerPixel) + (index % 97) + Int(state & 7))
        }
        return try PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    /// `pixels` written through `withRowSink` in strips of 16 rows, as the file's bytes, its pieces
    /// compressed by `threads` threads beside this one.
    func streamed(_ pixels: PixelBuffer, level: Int = 6, threads: Int = 0) throws -> Data {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("row-sink-\(UUID().uuidString).png").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        defer { unlink(path) }
        var options = ImageEncodeOptions()
        options.extras[.pngCompressionLevel] = level
        options.extras[.pngCompressionThreads] = threads
        let rowBytes = pixels.width * pixels.format.bytesPerPixel
        let wrote: Void? = try coder.withRowSink(
            size: pixels.size, pixelFormat: pixels.format, as: .png, options: options, fileDescriptor: fd
        ) { sink in
            var row = 0
            while row < pixels.height {
                let count = min(16, pixels.height - row)
                let strip = Array(pixels.bytes[row * rowBytes..<(row + count) * rowBytes])
                try sink.write(try PixelBuffer(width: pixels.width, height: count, format: pixels.format, bytes: strip))
                row += count
            }
            try sink.finish()
        }
        close(fd)
        #expect(wrote != nil)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test(
        "a streamed PNG of several compressed pieces decodes to the rows written",
        arguments: [
            (1500, 1000, PixelFormat.rgba8, 1), (2100, 700, .rgb8, 2), (3001, 1500, .gray8, 3), (997, 2003, .grayAlpha8, 4),
            (1800, 1200, .rgb8, 5), (1800, 1201, .rgb8, 6), (1799, 1200, .rgba8, 7), (640, 480, .rgb8, 8),
        ] as [(Int, Int, PixelFormat, UInt64)])
    func roundTrip(width: Int, height: Int, format: PixelFormat, seed: UInt64) throws {
        let source = try Self.pixels(width: width, height: height, format: format, seed: seed)
        let data = try streamed(source)
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.firstFrame == source)
        #expect(decoded.metadata.warnings.isEmpty, "\(decoded.metadata.warnings)")
    }

    @Test("a streamed PNG is within 1% of the whole-image encoder's size at level 6")
    func sizeMatchesWholeImageEncoder() throws {
        let source = try Self.pixels(width: 2000, height: 1500, format: .rgb8, seed: 9)
        let streamedSize = try streamed(source).count
        let whole = try coder.encode(Image(source), as: .png, options: ImageEncodeOptions()).count
        #expect(Double(streamedSize) <= Double(whole) * 1.01, "\(streamedSize) against \(whole)")
    }

    @Test(
        "compressor threads write the very file one thread writes, every piece joined into one valid zlib stream",
        arguments: [(1, PixelFormat.rgb8, 10), (2, .rgb8, 11), (3, .rgba8, 12), (2, .grayAlpha8, 13)] as [(Int, PixelFormat, UInt64)])
    func threadsWriteTheSameFile(threads: Int, format: PixelFormat, seed: UInt64) throws {
        // Over 8 MiB of filtered rows: three or more 4 MiB pieces, so several are out at once.
        let width = 10_000_000 / (1300 * format.bytesPerPixel)
        let source = try Self.pixels(width: width, height: 1300, format: format, seed: seed)
        let alone = try streamed(source)
        let beside = try streamed(source, threads: threads)
        #expect(beside == alone)
        // TestSupport's reader inflates with zlib (checking the Adler-32) and unfilters on its own.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("row-sink-\(UUID().uuidString).png")
        try beside.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let reference = try #require(ReferencePNG.read(url))
        #expect(reference.width == width && reference.height == 1300)
        #expect(reference.rgba == source.converted(to: .rgba8).bytes)
    }

    @Test("a writer given up midway with pieces out stops its threads and is freed")
    func abandonedWriterStopsItsThreads() throws {
        let source = try Self.pixels(width: 3000, height: 1000, format: .rgb8, seed: 14)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("row-sink-\(UUID().uuidString).png").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        var options = ImageEncodeOptions()
        options.extras[.pngCompressionThreads] = 2
        struct GivenUp: Error {}
        #expect(throws: GivenUp.self) {
            _ = try coder.withRowSink(size: source.size, pixelFormat: .rgb8, as: .png, options: options, fileDescriptor: fd) { sink in
                try sink.write(source)
                throw GivenUp()
            }
        }
    }
}
