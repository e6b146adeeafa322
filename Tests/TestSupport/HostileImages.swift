import CZlib
import Foundation

/// Small files made to cost a decoder gigabytes or minutes, built in code so no hostile file is
/// stored in the repository.
public enum HostileImages {
    // MARK: PNG

    public static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A PNG chunk; `declaredLength` replaces the true length in its header (the CRC stays right
    /// for the bytes given).
    public static func pngChunk(_ type: String, _ payload: [UInt8], declaredLength: Int? = nil) -> [UInt8] {
        let typed = Array(type.utf8) + payload
        let crc = typed.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        return be32(declaredLength ?? payload.count) + typed + be32(Int(crc))
    }

    /// IHDR of an 8-bit RGB image.
    public static func pngHeader(width: Int, height: Int) -> [UInt8] {
        pngChunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
    }

    /// A 1x1 PNG cut short after an ancillary `type` chunk whose header declares 2 GiB; 57 bytes.
    public static func pngWithHugeChunk(_ type: String) -> Data {
        let header = Array(type.utf8) + Array(repeating: 0x41, count: 16)
        return Data(pngSignature + pngHeader(width: 1, height: 1) + be32(0x7FFF_FFF0) + header)
    }

    /// A `width` x `height` black RGB PNG whose zlib stream goes on after the last row with
    /// `surplusBytes` more zeros (about a thousandth of that compressed), in 1 MiB IDAT chunks.
    public static func pngWithSurplusImageData(width: Int, height: Int, surplusBytes: Int) -> Data {
        var stream = z_stream()
        precondition(deflateInit_(&stream, 9, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var compressed: [UInt8] = []
        var output = [UInt8](repeating: 0, count: 1 << 16)
        func deflateAll(_ input: [UInt8], flush: Int32) {
            var input = input
            input.withUnsafeMutableBufferPointer { input in
                stream.next_in = input.baseAddress
                stream.avail_in = uInt(input.count)
                repeat {
                    output.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = uInt(out.count)
                        _ = deflate(&stream, flush)
                        compressed += out.prefix(out.count - Int(stream.avail_out))
                    }
                } while stream.avail_out == 0 || (flush == Z_FINISH && stream.avail_in > 0)
            }
        }
        // Filter byte 0, then the row.
        let rows = [UInt8](repeating: 0, count: height * (width * 3 + 1))
        deflateAll(rows, flush: Z_NO_FLUSH)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<(surplusBytes >> 20) { deflateAll(zeros, flush: Z_NO_FLUSH) }
        deflateAll([], flush: Z_FINISH)
        var file = pngSignature + pngHeader(width: width, height: height)
        var offset = 0
        while offset < compressed.count {
            let end = min(offset + (1 << 20), compressed.count)
            file += pngChunk("IDAT", Array(compressed[offset..<end]))
            offset = end
        }
        return Data(file + pngChunk("IEND", []))
    }

    // MARK: JPEG

    /// A progressive grayscale JPEG: one DC scan, then `scans - 1` identical AC scans made only of
    /// end-of-band runs, a few bytes each, every one of which walks all the image's blocks again.
    public static func progressiveJPEG(width: Int, height: Int, scans: Int) -> Data {
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        var file: [UInt8] = [0xFF, 0xD8]
        file += jpegSegment(0xDB, [0] + Array(repeating: 1, count: 64))
        file += jpegSegment(0xC2, [8] + be16(height) + be16(width) + [1, 1, 0x11, 0])
        // DC table 0: one symbol (category 0), code "0". AC table 0: EOB0...EOB14, 4-bit codes.
        file += jpegSegment(0xC4, [0x00, 1] + Array(repeating: 0, count: 15) + [0])
        file += jpegSegment(0xC4, [0x10, 0, 0, 0, 15] + Array(repeating: 0, count: 12) + (0..<15).map { UInt8($0 << 4) })
        file += jpegSegment(0xDA, [1, 1, 0x00, 0, 0, 0])
        var dc = JPEGBits()
        for _ in 0..<blocks { dc.put(0, count: 1) }
        file += dc.finish()
        var ac = JPEGBits()
        var left = blocks
        while left > 0 {
            let run = min(left, 32767)
            let bits = Int.bitWidth - run.leadingZeroBitCount - 1
            ac.put(bits, count: 4)
            ac.put(run - (1 << bits), count: bits)
            left -= run
        }
        let acScan = jpegSegment(0xDA, [1, 1, 0x00, 1, 63, 0]) + ac.finish()
        for _ in 1..<max(scans, 1) { file += acScan }
        return Data(file + [0xFF, 0xD9])
    }

    /// `jpeg` with its last scan (SOS to EOI) repeated `times` more times.
    public static func repeatingLastScan(of jpeg: Data, times: Int) -> Data {
        let bytes = [UInt8](jpeg)
        var lastSOS: Int?
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xD9 { break }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            offset += 2 + length
            guard marker == 0xDA else { continue }
            lastSOS = offset - 2 - length
            // Entropy-coded data runs to the next marker that is not a stuffed 0xFF or a restart.
            while offset + 1 < bytes.count, !(bytes[offset] == 0xFF && bytes[offset + 1] != 0 && !(0xD0...0xD7).contains(bytes[offset + 1])) {
                offset += 1
            }
        }
        guard let start = lastSOS, offset + 2 <= bytes.count, bytes[offset + 1] == 0xD9 else { return jpeg }
        let scan = bytes[start..<offset]
        var file = Array(bytes[..<offset])
        for _ in 0..<times { file += scan }
        return Data(file + [0xFF, 0xD9])
    }

    /// The headers of a `width` x `height` CMYK JPEG (Adobe APP14, full-resolution components) up
    /// to and including its first scan header: progressive (one DC scan for all four components),
    /// or sequential with a first scan of component 1 alone, which libjpeg also buffers in full.
    /// The entropy-coded data is `dataBytes` zero bytes (every DC difference 0).
    public static func cmykJPEG(width: Int, height: Int, progressive: Bool, dataBytes: Int) -> Data {
        var file: [UInt8] = [0xFF, 0xD8]
        file += jpegSegment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 0])
        file += jpegSegment(0xDB, [0] + Array(repeating: 1, count: 64))
        file += jpegSegment(progressive ? 0xC2 : 0xC0, [8] + be16(height) + be16(width) + [4] + (1...4).flatMap { [UInt8($0), 0x11, 0] })
        file += jpegSegment(0xC4, [0x00, 1] + Array(repeating: 0, count: 15) + [0])
        file += jpegSegment(0xC4, [0x10, 1] + Array(repeating: 0, count: 15) + [0])
        if progressive {
            file += jpegSegment(0xDA, [4] + (1...4).flatMap { [UInt8($0), 0x00] } + [0, 0, 0])
        } else {
            file += jpegSegment(0xDA, [1, 1, 0x00, 0, 63, 0])
        }
        file += Array(repeating: 0, count: dataBytes)
        return Data(file + [0xFF, 0xD9])
    }

    private static func jpegSegment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(body.count + 2) + body
    }

    private static func be16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    public static func be32(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }
}

/// Entropy-coded bits, most significant first, with JPEG's byte stuffing and 1-bit padding.
private struct JPEGBits {
    private var bytes: [UInt8] = []
    private var accumulator = 0
    private var count = 0

    mutating func put(_ value: Int, count bits: Int) {
        for shift in stride(from: bits - 1, through: 0, by: -1) {
            accumulator = accumulator << 1 | (value >> shift) & 1
            count += 1
            if count == 8 {
                bytes.append(UInt8(accumulator))
                if accumulator == 0xFF { bytes.append(0) }
                accumulator = 0
                count = 0
            }
        }
    }

    mutating func finish() -> [UInt8] {
        while count != 0 { put(1, count: 1) }
        return bytes
    }
}
