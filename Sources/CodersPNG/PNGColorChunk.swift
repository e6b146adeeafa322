import CDeflate
import Foundation
import PipelineCore

/// The colour chunks the encoder writes when the image keeps its colour description: iCCP for an
/// ICC profile that still describes the pixels (a name, the compression method 0 and the
/// zlib-compressed profile, as libpng's `png_set_iCCP` writes it, compressed with libdeflate like
/// the image data), or gAMA and cHRM for PNG's own facts. sRGB, and facts as good as sRGB, are
/// written as nothing: an untagged PNG is read as sRGB.
enum PNGColorChunk {
    static func chunks(for profile: ImageColorProfile?, pixels format: PixelFormat) -> [PNGChunkInsertion.Chunk] {
        switch profile {
        case .icc:
            return [profile?.iccData(describing: format).flatMap(iccp)].compactMap { $0 }
        case .calibrated(let gamma, let chromaticities) where profile?.isSRGB == false:
            guard let gama = fixedPoint(gamma) else { return [] }
            let coordinates = chromaticities.map { c in
                [c.whiteX, c.whiteY, c.redX, c.redY, c.greenX, c.greenY, c.blueX, c.blueY].compactMap(fixedPoint)
            }
            let chrm = coordinates.flatMap { $0.count == 8 ? Array($0.joined()) : nil }
            return [PNGChunkInsertion.Chunk(type: "gAMA", payload: gama)]
                + (chrm.map { [PNGChunkInsertion.Chunk(type: "cHRM", payload: $0)] } ?? [])
        default:
            return []
        }
    }

    /// PNG's unsigned 4-byte value × 100000, big-endian; nil for values PNG cannot hold.
    private static func fixedPoint(_ value: Double) -> [UInt8]? {
        let scaled = (value * 100_000).rounded()
        guard scaled.isFinite, scaled >= 0, scaled <= Double(Int32.max) else { return nil }
        let integer = UInt32(scaled)
        return [UInt8(integer >> 24), UInt8(truncatingIfNeeded: integer >> 16), UInt8(truncatingIfNeeded: integer >> 8), UInt8(truncatingIfNeeded: integer)]
    }

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
