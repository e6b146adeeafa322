import Foundation
import PipelineCore

/// The facts of a PNG's IHDR chunk, read in Swift before libpng is involved so that a hostile size
/// is refused before any decoder state or pixel memory exists.
struct PNGHeader: Equatable {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Signature (8) + IHDR length and type (8) + IHDR data (13).
    static let minimumByteCount = 29

    let size: ImageSize
    let bitDepth: Int
    let colorType: Int
    let isInterlaced: Bool
    /// IHDR's bit depth, colour type, compression, filter and interlace bytes, as stored.
    let fieldsAfterSize: [UInt8]

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
        bitDepth = Int(head[24])
        colorType = Int(head[25])
        isInterlaced = head[28] == 1
        fieldsAfterSize = Array(head[24..<29])
    }

    /// IHDR's colour type as reported on the image: 0 and 4 gray, 2 and 6 RGB, 3 a palette (alpha
    /// is `hasAlpha`'s to say).
    var colorModel: String? {
        switch colorType {
        case 0, 4: ImageColorModel.gray
        case 2, 6: ImageColorModel.rgb
        case 3: ImageColorModel.palette
        default: nil
        }
    }

    /// Bytes libpng and CodersPNG hold while decoding, besides the output pixels: libpng's two row
    /// buffers at the widest pixel its transforms pass through (8 bytes for 16-bit RGBA), the strip
    /// a thumbnail is read in, zlib's window and the IDAT read buffer. Nil when it overflows.
    var decoderMemoryEstimate: Int? {
        let pixelBytes = bitDepth > 8 ? 8 : 4
        let (row, rowOverflow) = size.width.multipliedReportingOverflow(by: pixelBytes)
        guard !rowOverflow else { return nil }
        let stripRows = min(PNGDecoder.stripRows, max(size.height, 1))
        let (rows, overflow) = row.multipliedReportingOverflow(by: 2 + stripRows)
        return overflow ? nil : rows + 64 << 10
    }
}
