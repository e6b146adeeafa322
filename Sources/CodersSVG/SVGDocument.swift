import CSVGShim
import Foundation
import PipelineCore

/// One parsed SVG document (librsvg's handle, freed with this object). Not thread-safe; used by
/// one decode.
final class SVGDocument {
    private let handle: OpaquePointer

    /// Cairo's largest surface side.
    static let maxSide = 32767

    init(_ data: Data) throws {
        try SVGLibrary.open()
        var error = [CChar](repeating: 0, count: 512)
        let handle = data.withUnsafeBytes { bytes in
            ip_svg_load(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &error, error.count)
        }
        guard let handle else { throw ImagePipeError.badImageData(reason: "SVG: \(Self.text(error))") }
        self.handle = handle
    }

    deinit { ip_svg_free(handle) }

    /// The document's own size in whole pixels (rounded up, as rsvg-convert does).
    func pixelSize() throws -> ImageSize {
        var width = 0.0, height = 0.0
        guard ip_svg_size(handle, &width, &height) != 0 else {
            throw ImagePipeError.badImageData(reason: "SVG has no width and height and no viewBox to draw it by")
        }
        guard width.isFinite, height.isFinite, width > 0, height > 0, width < 1e9, height < 1e9 else {
            throw ImagePipeError.badImageData(reason: "SVG size \(width) x \(height) is not drawable")
        }
        return ImageSize(width: Int(width.rounded(.up)), height: Int(height.rounded(.up)))
    }

    /// The document drawn at `size`, as straight (not premultiplied) RGBA, in bands of
    /// `rowsPerBand` rows with `betweenBands` called before each: what it throws stops the drawing.
    func render(at size: ImageSize, rowsPerBand: Int, betweenBands: () throws -> Void) throws -> PixelBuffer {
        guard size.width <= Self.maxSide, size.height <= Self.maxSide, !size.isEmpty else {
            throw ImagePipeError.unsupportedFormat(.svg, reason: "cairo draws at most \(Self.maxSide) pixels a side, not \(size)")
        }
        var pixels = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: size.width, height: size.height, format: .rgba8))
        var error = [CChar](repeating: 0, count: 512)
        let band = min(max(rowsPerBand, 1), size.height)
        for firstRow in stride(from: 0, to: size.height, by: band) {
            try betweenBands()
            let rows = min(band, size.height - firstRow)
            let status = pixels.withUnsafeMutableBufferPointer { buffer in
                ip_svg_render_rows(handle, buffer.baseAddress, Int32(size.width), Int32(size.height), Int32(firstRow), Int32(rows), &error, error.count)
            }
            guard status == 0 else { throw ImagePipeError.badImageData(reason: "SVG: \(Self.text(error))") }
        }
        SVGPixels.straightenCairoARGB(&pixels)
        return try PixelBuffer(width: size.width, height: size.height, format: .rgba8, bytes: pixels)
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
