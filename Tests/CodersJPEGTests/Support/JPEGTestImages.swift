import CodersJPEG
import CodersPNG
import Foundation
import PipelineCore
import TestSupport

/// Comparisons and corpus look-ups shared by the JPEG tests.
enum JPEGTestImages {
    /// Both coders, the way an app registers them: bytes decide which one decodes.
    static let coders = ImageCodersManager(coders: [PNGCoder(), JPEGCoder()])

    /// How far apart two images are, compared in the reference's colour model: a gray reference
    /// (libjpeg-turbo's testorig.png is djpeg's grayscale output) is compared with the luma of a
    /// colour image.
    struct Difference: CustomStringConvertible {
        var mean: Double
        var max: Int
        var description: String { "mean \(mean), max \(max)" }
    }

    static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> Difference {
        precondition(a.size == b.size, "sizes differ: \(a.size) vs \(b.size)")
        let model: PixelFormat = b.format.isGray ? .gray8 : .rgb8
        let x = a.converted(to: model).bytes, y = b.converted(to: model).bytes
        var total = 0, worst = 0
        for i in 0..<x.count {
            let d = abs(Int(x[i]) - Int(y[i]))
            total += d
            worst = Swift.max(worst, d)
        }
        return Difference(mean: Double(total) / Double(Swift.max(x.count, 1)), max: worst)
    }

    /// The reference image a manifest row names ("reference pixels: NAME.png"), next to the file.
    static func referenceURL(for row: Corpus.Row) -> URL? {
        if row.file == "libjpeg-turbo/testorig.jpg" { return row.url.deletingLastPathComponent().appendingPathComponent("testorig.png") }
        guard let range = row.notes.range(of: "reference pixels: ") else { return nil }
        let name = row.notes[range.upperBound...].prefix { $0 != " " && $0 != ";" }
        return row.url.deletingLastPathComponent().appendingPathComponent(String(name))
    }

    static func gradient(width: Int, height: Int, format: PixelFormat) throws -> PixelBuffer {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * format.bytesPerPixel)
        for y in 0..<height {
            for x in 0..<width {
                let r = UInt8((x * 255) / Swift.max(width - 1, 1))
                let g = UInt8((y * 255) / Swift.max(height - 1, 1))
                let b = UInt8(128 + (x + y) % 64)
                switch format {
                case .gray8: bytes += [r]
                case .grayAlpha8: bytes += [r, g]
                case .rgb8: bytes += [r, g, b]
                case .rgba8: bytes += [r, g, b, UInt8(255 - (x * 255) / Swift.max(width - 1, 1))]
                }
            }
        }
        return try PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    /// The SOF marker byte and each component's sampling factors, read from the bytes.
    static func frameHeader(of data: Data) -> (marker: UInt8, sampling: [UInt8])? {
        let bytes = [UInt8](data)
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if [0xC0, 0xC1, 0xC2].contains(marker), offset + 4 + length <= bytes.count {
                let count = Int(bytes[offset + 9])
                let sampling = (0..<count).map { bytes[offset + 11 + $0 * 3] }
                return (marker, sampling)
            }
            offset += 2 + length
        }
        return nil
    }
}
