import CAVIF
import Foundation
import PipelineCore

/// A large still written as an AVIF grid: each cell encoded alone by libavif, the work's
/// cancellation asked before each one (libavif 0.11 and libaom have no hook to stop inside an
/// encode; a cell of work that can be cancelled is encoded by a child process it kills,
/// `AVIFChildProcessEncode`), and the cells' AV1 data put together by `AVIFGridWriter`. libaom's
/// buffers are a cell's, not the whole image's.
enum AVIFGridEncoder {
    /// Writes `buffer` (RGB or RGBA, as `AVIFEncoder` prepared it) in the cells of `layout`.
    static func encode(_ buffer: PixelBuffer, layout: AVIFGridLayout, metadata: ImageMetadata, options: ImageEncodeOptions) throws -> Data {
        // MIAF allows 4:2:0 only for even output sizes; an odd one is written in 4:4:4.
        let evenSize = layout.size.width.isMultiple(of: 2) && layout.size.height.isMultiple(of: 2)
        let yuvFormat = evenSize ? AVIFEncoder.defaultYUVFormat(options) : AVIF_PIXEL_FORMAT_YUV444
        let settings = AVIFEncoderSettings(options)
        // The ICC profile is a property of every cell (stored once); EXIF and XMP are items, taken from the first.
        var cellMetadata = metadata
        cellMetadata.exif = nil
        cellMetadata.xmp = nil
        var colour: [AVIFCellFile.Item] = []
        var alpha: [AVIFCellFile.Item?] = []
        var first: AVIFCellFile?
        colour.reserveCapacity(layout.cellCount)
        for row in 0..<layout.rows {
            for column in 0..<layout.columns {
                try DecodeCancellation.checkCurrent()
                let pixels = cell(of: buffer, layout: layout, column: column, row: row)
                let data = try AVIFEncoder.write(pixels, metadata: first == nil ? metadata : cellMetadata, settings: settings, yuvFormat: yuvFormat)
                let file = try AVIFCellFile([UInt8](data))
                if first == nil { first = file }
                colour.append(file.colour)
                alpha.append(file.alpha)
            }
        }
        try DecodeCancellation.checkCurrent()
        guard let first else { throw ImagePipeError.encodingFailed(reason: "AVIF grid without cells") }
        var alphaCells: [AVIFCellFile.Item]?
        if let model = alpha.lazy.compactMap({ $0 }).first {
            // libavif leaves the alpha image out of a cell that is opaque; the alpha grid needs one for every cell.
            let opaque = alpha.contains { $0 == nil } ? try opaqueAlpha(like: model, cell: layout.cell, settings: settings) : nil
            alphaCells = alpha.map { $0 ?? opaque ?? model }
        }
        return try Data(
            AVIFGridWriter.write(
                fileType: first.fileType, handler: first.handler, colour: colour, alpha: alphaCells, metadata: first.metadata, layout: layout))
    }

    /// The cell's pixels: the image's region, its last column and row repeated to fill the cell
    /// (the grid crops them; repeated edges cost fewer bits than black).
    static func cell(of buffer: PixelBuffer, layout: AVIFGridLayout, column: Int, row: Int) -> PixelBuffer {
        let region = layout.region(column: column, row: row)
        let pixelBytes = buffer.format.bytesPerPixel
        let cellRow = layout.cell.width * pixelBytes
        var bytes = [UInt8](repeating: 0, count: cellRow * layout.cell.height)
        buffer.bytes.withUnsafeBufferPointer { source in
            bytes.withUnsafeMutableBufferPointer { cell in
                for y in 0..<layout.cell.height {
                    let sourceRow = (region.y + min(y, region.height - 1)) * buffer.bytesPerRow + region.x * pixelBytes
                    let target = y * cellRow
                    let copied = region.width * pixelBytes
                    _ = UnsafeMutableBufferPointer(rebasing: cell[target..<target + copied]).update(fromContentsOf: source[sourceRow..<sourceRow + copied])
                    let last = sourceRow + copied - pixelBytes
                    for index in copied..<cellRow { cell[target + index] = source[last + index % pixelBytes] }
                }
            }
        }
        return PixelBuffer(unchecked: layout.cell.width, height: layout.cell.height, format: buffer.format, bytes: bytes)
    }

    /// An alpha cell that is opaque everywhere: a white monochrome image's AV1 data (luma 255,
    /// full range, which is alpha 255) with the properties of `model`, another cell's alpha.
    private static func opaqueAlpha(like model: AVIFCellFile.Item, cell: ImageSize, settings: AVIFEncoderSettings) throws -> AVIFCellFile.Item {
        let white = try PixelBuffer(width: cell.width, height: cell.height, format: .rgb8, fill: .white)
        let data = try AVIFEncoder.write(white, metadata: ImageMetadata(), settings: settings, yuvFormat: AVIF_PIXEL_FORMAT_YUV400)
        let file = try AVIFCellFile([UInt8](data))
        return AVIFCellFile.Item(infoFlags: model.infoFlags, infoTail: model.infoTail, payload: file.colour.payload, properties: model.properties)
    }
}
