import CDeflate
import Foundation

/// The iCCP chunk the encoder writes when the image keeps an ICC profile: a name, the compression
/// method (0, zlib) and the zlib-compressed profile, as libpng's `png_set_iCCP` would write it.
/// Compressed with libdeflate, like the image data.
enum PNGColorChunk {
    /// The iCCP chunk holding `profile`; nil if compression fails.
    static func iccp(_ profile: Data) -> PNGChunkInsertion.Chunk? {
        guard let compressor = libdeflate_alloc_compressor(9) else { return nil }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, profile.count)
        var compressed = [UInt8](repeating: 0, count: bound)
        let size = profile.withUnsafeBytes { source in
            compressed.withUnsafeMutableBytes { libdeflate_zlib_compress(compressor, source.baseAddress, source.count, $0.baseAddress, $0.count) }
        }
        guard size > 0 else { return nil }
        return PNGChunkInsertion.Chunk(type: "iCCP", payload: Array("ICC Profile".utf8) + [0, 0] + compressed.prefix(size))
    }
}
