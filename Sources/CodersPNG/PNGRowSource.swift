import Foundation
import PipelineCore

/// A non-interlaced PNG read a strip of rows at a time (`ImageRowSource`), over bytes its caller
/// keeps pinned for its life. A file cut short throws `RowStreamFallback`: the full decode shows
/// the rows that arrived, with its warning.
final class PNGRowSource: ImageRowSource {
    let size: ImageSize
    let pixelFormat: PixelFormat
    let orientation: ImageOrientation
    let colorProfile: ImageColorProfile?
    let holdsMetadata: Bool
    private(set) var warnings: [ImageDecodeWarning]
    private let reader: PNGReader
    private let layout: PNGLayout
    private let checkpoint: DecodeCheckpoint
    private let mapping: MappedFile?
    private var rowsRead = 0
    /// When `nextRows` last returned: the time until the next call is the reader's, not the decode's.
    private var returned: ContinuousClock.Instant?

    init(
        reader: PNGReader, layout: PNGLayout, orientation: ImageOrientation, colorProfile: ImageColorProfile?,
        holdsMetadata: Bool, warnings: [ImageDecodeWarning], checkpoint: DecodeCheckpoint, mapping: MappedFile?
    ) {
        self.holdsMetadata = holdsMetadata
        self.mapping = mapping
        self.reader = reader
        self.layout = layout
        self.size = layout.size
        self.pixelFormat = layout.format
        self.orientation = orientation
        self.colorProfile = colorProfile
        self.warnings = warnings
        self.checkpoint = checkpoint
    }

    func nextRows(max maxRows: Int) throws -> PixelBuffer? {
        guard rowsRead < layout.size.height else { return nil }
        if let returned { checkpoint.exclude(.now - returned) }
        defer { returned = .now }
        try checkpoint.check()
        let count = min(max(maxRows, 1), layout.size.height - rowsRead)
        let rowBytes = layout.bytesPerRow
        var complete = false
        let bytes = try [UInt8](unsafeUninitializedCapacity: count * rowBytes) { storage, initialized in
            guard let base = storage.baseAddress else { return }
            var rows = (0..<count).map { Optional(base + $0 * rowBytes) }
            complete = try rows.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, count: count) }
            // libpng writes every byte of every row it reports; the rest is never handed out.
            initialized = complete ? count * rowBytes : 0
        }
        guard complete else { throw RowStreamFallback("PNG file is cut short") }
        rowsRead += count
        if rowsRead == layout.size.height { try finish() }
        if rowsRead % MappedFile.releaseRows < count { mapping?.releasePages() }
        return PixelBuffer(unchecked: layout.size.width, height: count, format: layout.format, bytes: bytes)
    }

    /// Reads the chunks after the image, as the full decode does, for their warnings.
    private func finish() throws {
        let whole = try reader.finish()
        warnings = reader.warnings + warnings
        if reader.stoppedAfterRows {
            warnings.append(ImageDecodeWarning(.corruptData, message: "PNG: image data goes on after the last row; the rest of the file was not read"))
        }
        if !whole { warnings.append(try PNGDecoder.truncation(rowsRead: layout.size.height, layout: layout)) }
    }
}
