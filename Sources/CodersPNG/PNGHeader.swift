import Foundation
import PipelineCore

/// The facts of a PNG's IHDR chunk, read in Swift before libpng is involved so that a hostile size
/// is refused before any decoder state or pixel memory exists.
struct PNGHeader: Equatable {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Signature (8) + IHDR length and type (8) + IHDR data (13).
    static let minimumByteCount = 29

    let size: ImageSize
    let isInterlaced: Bool

    /// Nil when the bytes are too short or do not start with a signature and an IHDR chunk; libpng
    /// then produces the precise error.
    init?(_ data: Data) {
        guard data.count >= Self.minimumByteCount else { return nil }
        let head = [UInt8](data.prefix(Self.minimumByteCount))
        guard head[0..<8].elementsEqual(Self.signature), head[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        func be32(_ at: Int) -> Int {
            Int(head[at]) << 24 | Int(head[at + 1]) << 16 | Int(head[at + 2]) << 8 | Int(head[at + 3])
        }
        size = ImageSize(width: be32(16), height: be32(20))
        isInterlaced = head[28] == 1
    }
}
