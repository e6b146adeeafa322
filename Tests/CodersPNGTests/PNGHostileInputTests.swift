import CPNGShim
import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("PNG hostile input", .dedicatedThreads)
struct PNGHostileInputTests {
    @Test(
        "A chunk declaring more bytes than the file holds fails as truncated before it is allocated",
        arguments: ["iTXt", "zTXt", "sPLT", "pCAL", "sCAL", "tEXt", "eXIf"])
    func hugeChunkIsTruncated(type: String) throws {
        let file = HostileImages.pngWithHugeChunk(type)
        #expect(file.count == 57)
        for options in [ImageDecodeOptions(), ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 1, height: 1))] {
            let error = #expect(throws: ImagePipeError.self) { try PNGCoder().decode(file, options: options) }
            guard case .badImageData(let reason) = error else {
                Issue.record("got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("truncated"), "\(reason)")
            #expect(reason.contains("declares 2147483632 bytes"), "\(reason)")
        }
    }

    @Test("Image data declaring more bytes than the file holds is a truncated file, read in pieces")
    func hugeImageDataIsTruncated() throws {
        let error = #expect(throws: ImagePipeError.self) { try PNGCoder().decode(HostileImages.pngWithHugeChunk("IDAT"), options: ImageDecodeOptions()) }
        guard case .badImageData(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("truncated before its first row"), "\(reason)")
    }

    @Test("Surplus image data after the last row is left uninflated: reading stops and the image is whole")
    func surplusImageDataStops() throws {
        // 48 MiB of zeros after the rows compress to about 47 KiB, past the 32 KiB allowed.
        let file = HostileImages.pngWithSurplusImageData(width: 64, height: 48, surplusBytes: 48 << 20)
        let image = try PNGCoder().decode(file, options: ImageDecodeOptions())
        #expect(image.pixelSize == ImageSize(width: 64, height: 48))
        #expect(image.firstFrame.bytes.allSatisfy { $0 == 0 })

        // The reader says where it stopped: right after the rows, most of the file unread.
        let stopped = file.withUnsafeBytes { bytes -> Bool in
            guard let reader = ipng_reader_create(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, 1 << 20) else { return false }
            defer { ipng_reader_destroy(reader) }
            var header = ipng_header()
            guard ipng_reader_read_header(reader, &header) != 0 else { return false }
            var row = [UInt8](repeating: 0xAA, count: Int(header.rowbytes) * Int(header.height))
            return row.withUnsafeMutableBufferPointer { row -> Bool in
                var rows = (0..<Int(header.height)).map { Optional(row.baseAddress! + $0 * Int(header.rowbytes)) }
                guard ipng_reader_read_rows(reader, &rows, header.height) != 0, ipng_reader_finish(reader) != 0 else { return false }
                return ipng_reader_stopped_after_rows(reader) != 0 && row.allSatisfy { $0 == 0 }
            }
        }
        #expect(stopped)
    }

    @Test("A thumbnail of a file with surplus image data stops the same way")
    func surplusImageDataThumbnail() throws {
        let file = HostileImages.pngWithSurplusImageData(width: 64, height: 48, surplusBytes: 48 << 20)
        let image = try PNGCoder().decode(file, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 8, height: 8)))
        #expect(image.pixelSize == ImageSize(width: 8, height: 6))
    }

    @Test("A working set over maxDecoderMemory is refused from the header, naming the setting")
    func decoderMemoryLimit() throws {
        // 16-bit rows are read through 8-byte pixels: 2 buffers + a 16-row strip of 100,000 pixels.
        let file = try PNGCoder().encode(
            Image(PixelBuffer(width: 100_000, height: 1, format: .gray8, bytes: [UInt8](repeating: 7, count: 100_000))),
            as: .png, options: ImageEncodeOptions())
        let error = #expect(throws: ImagePipeError.self) {
            try PNGCoder().decode(file, options: ImageDecodeOptions(maxDecoderMemory: 1 << 20))
        }
        guard case .limitExceeded(let limit, let value, 1 << 20) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(limit == .decoderMemory)
        #expect(value > 1 << 20)
        #expect(error?.description.contains("ImageDecodeOptions.maxDecoderMemory") == true)
        #expect(try PNGCoder().decode(file, options: ImageDecodeOptions()).pixelSize == ImageSize(width: 100_000, height: 1))
    }

    @Test("A cancelled decode stops with cancelled; a spent time budget with decodeTime")
    func cancellationAndDeadline() throws {
        let file = try PNGCoder().encode(Image(PNGTestImages.gradient(width: 64, height: 64, format: .rgb8)), as: .png, options: ImageEncodeOptions())
        let cancellation = DecodeCancellation()
        cancellation.cancel()
        let cancelled = #expect(throws: ImagePipeError.self) {
            try DecodeCancellation.$current.withValue(cancellation) { try PNGCoder().decode(file, options: ImageDecodeOptions()) }
        }
        #expect(cancelled == .cancelled)
        let late = #expect(throws: ImagePipeError.self) {
            try PNGCoder().decode(file, options: ImageDecodeOptions(maxDecodeTime: .seconds(-1)))
        }
        guard case .limitExceeded(let limit, _, _) = late else {
            Issue.record("got \(String(describing: late))")
            return
        }
        #expect(limit == .decodeTime)
        #expect(try PNGCoder().decode(file, options: ImageDecodeOptions(maxDecodeTime: nil)).pixelSize == ImageSize(width: 64, height: 64))
    }
}
