import CodersJXL
import Foundation
import PipelineCore
import TestSupport
import Testing

/// JPEG XL files that claim more than they hold or take longer than allowed: refused from the
/// header before anything is allocated, or stopped by the time budget, with the setting named.
@Suite(.dedicatedThreads)
struct JXLHostileInputTests {
    /// A bare codestream of 12 bytes whose header says 32,768 x 32,768 (1.07 gigapixels), every
    /// other header field left at its default: the size header's two 30-bit sizes, then
    /// `all_default` image metadata.
    static func gigapixelHeader() -> Data {
        var writer = BitWriter()
        writer.write(0, bits: 1)  // not a multiple of 8 small size
        writer.write(3, bits: 2)  // height: 30 bits follow
        writer.write(32_767, bits: 30)
        writer.write(0, bits: 3)  // no fixed ratio: a width follows
        writer.write(3, bits: 2)
        writer.write(32_767, bits: 30)
        writer.write(1, bits: 1)  // all_default metadata
        return Data([0xFF, 0x0A] + writer.bytes + [0, 0, 0, 0])
    }

    @Test("a 1-gigapixel header in a few bytes is refused on maxPixels before anything is allocated")
    func gigapixel() throws {
        let data = Self.gigapixelHeader()
        #expect(data.count < 20)
        let start = ContinuousClock.now
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 32_768 * 32_768, maximum: ImageDecodeOptions().maxPixels)) {
            try JXLCoder().decode(data, options: ImageDecodeOptions())
        }
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(JXLCoder().decodeEstimate(for: data, options: ImageDecodeOptions()) == nil)
        // A thumbnail of it is refused too: the frame would be decoded whole.
        #expect(throws: ImagePipeError.self) {
            try JXLCoder().decode(data, options: ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 64, height: 64)))
        }
    }

    @Test("a file whose working set is over maxDecoderMemory is refused from its header")
    func decoderMemory() throws {
        let data = try JXLCoder().encode(Image(try PixelBuffer(width: 300, height: 200, format: .rgb8)), as: .jxl, options: ImageEncodeOptions())
        #expect {
            try JXLCoder().decode(data, options: ImageDecodeOptions(maxDecoderMemory: 100_000))
        } throws: { error in
            guard case .limitExceeded(let limit, _, _) = error as? ImagePipeError else { return false }
            return limit.setting == "ImageDecodeOptions.maxDecoderMemory"
        }
    }

    @Test("a decode over maxDecodeTime stops within libjxl's work")
    func decodeTime() throws {
        let noise = (0..<1200 * 1200 * 3).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let data = try JXLCoder().encode(Image(try PixelBuffer(width: 1200, height: 1200, format: .rgb8, bytes: noise)), as: .jxl, options: ImageEncodeOptions(lossless: true))
        let start = ContinuousClock.now
        #expect {
            try JXLCoder().decode(data, options: ImageDecodeOptions(maxDecodeTime: .milliseconds(1)))
        } throws: { error in
            guard case .limitExceeded(let limit, _, _) = error as? ImagePipeError else { return false }
            return limit == .decodeTime
        }
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test("a cancelled decode stops with cancelled")
    func cancelledDecode() throws {
        let data = try JXLCoder().encode(Image(try PixelBuffer(width: 64, height: 64, format: .rgb8)), as: .jxl, options: ImageEncodeOptions())
        let flag = DecodeCancellation()
        flag.cancel()
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(flag) { try JXLCoder().decode(data, options: ImageDecodeOptions()) }
        }
    }

    @Test("every prefix of a file is refused or decoded, never crashing")
    func prefixes() throws {
        let data = try JXLCoder().encode(Image(try PixelBuffer(width: 40, height: 30, format: .rgba8, bytes: TestPNGWriter.pattern(width: 40, height: 30, alpha: true))), as: .jxl, options: ImageEncodeOptions())
        for length in stride(from: 0, to: data.count, by: max(data.count / 40, 1)) {
            _ = try? JXLCoder().decode(data.prefix(length), options: ImageDecodeOptions())
        }
    }
}

/// Bits written least significant first, as JPEG XL's headers are.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    mutating func write(_ value: UInt64, bits: Int) {
        for bit in 0..<bits {
            if used % 8 == 0 { bytes.append(0) }
            if value >> UInt64(bit) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1) << UInt8(used % 8) }
            used += 1
        }
    }
}
