import CDeflate
import Foundation

/// The iCCP chunk the encoder writes after IHDR when the image keeps an ICC profile: a name, the
/// compression method (0, zlib) and the zlib-compressed profile, as libpng's `png_set_iCCP` would
/// write it. Compressed with libdeflate, like the image data.
enum PNGColorChunk {
    /// Signature (8) plus IHDR (4 length + 4 type + 13 data + 4 CRC): PNGWriter.c writes these first.
    static let afterIHDR = 33

    /// `png` with an iCCP chunk holding `profile` right after IHDR; nil if compression fails.
    static func embedding(_ profile: Data, in png: Data) -> Data? {
        guard png.count > afterIHDR, let compressor = libdeflate_alloc_compressor(9) else { return nil }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, profile.count)
        var compressed = [UInt8](repeating: 0, count: bound)
        let size = profile.withUnsafeBytes { source in
            compressed.withUnsafeMutableBytes { libdeflate_zlib_compress(compressor, source.baseAddress, source.count, $0.baseAddress, $0.count) }
        }
        let payload = Array("ICC Profile".utf8) + [0, 0] + compressed.prefix(size)
        guard size > 0, let length = UInt32(exactly: payload.count), length <= 0x7FFF_FFFF else { return nil }
        let typed = Array("iCCP".utf8) + payload
        let crc = typed.withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        var out = Data(capacity: png.count + typed.count + 8)
        out.append(png.prefix(afterIHDR))
        out.append(contentsOf: bigEndian(length) + typed + bigEndian(crc))
        out.append(png.dropFirst(afterIHDR))
        return out
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
