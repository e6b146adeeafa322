import CJPEG
import Foundation
import PipelineCore

/// A gray or RGB JPEG at full size, read a strip of rows at a time (`ImageRowSource`) from a
/// started decompressor. libjpeg holds one row group, or a progressive file's coefficients.
final class JPEGRowSource: ImageRowSource {
    let size: ImageSize
    let pixelFormat: PixelFormat
    let orientation: ImageOrientation
    let colorProfile: ImageColorProfile?
    private(set) var holdsMetadata: Bool
    private let extraWarnings: [ImageDecodeWarning]
    private let decompressor: JPEGDecompressor
    private let mapping: MappedFile?
    private let checkpoint: DecodeCheckpoint
    private var rowsRead = 0
    /// When `nextRows` last returned: the time until the next call is the reader's, not the decode's.
    private var returned: ContinuousClock.Instant?

    init(
        decompressor: JPEGDecompressor, format: PixelFormat, orientation: ImageOrientation,
        colorProfile: ImageColorProfile?, holdsMetadata: Bool, warnings: [ImageDecodeWarning],
        checkpoint: DecodeCheckpoint, mapping: MappedFile?
    ) {
        self.checkpoint = checkpoint
        self.mapping = mapping
        self.holdsMetadata = holdsMetadata
        self.decompressor = decompressor
        let info = decompressor.info.pointee
        self.size = ImageSize(width: Int(info.output_width), height: Int(info.output_height))
        self.pixelFormat = format
        self.orientation = orientation
        self.colorProfile = colorProfile
        self.extraWarnings = warnings
    }

    var warnings: [ImageDecodeWarning] { decompressor.warnings + extraWarnings }

    func nextRows(max maxRows: Int) throws -> PixelBuffer? {
        guard rowsRead < size.height else { return nil }
        if let returned { checkpoint.exclude(.now - returned) }
        defer { returned = .now }
        let count = min(max(maxRows, 1), size.height - rowsRead)
        let rowBytes = size.width * pixelFormat.bytesPerPixel
        let bytes = try [UInt8](unsafeUninitializedCapacity: count * rowBytes) { storage, initialized in
            guard let base = storage.baseAddress else { return }
            var rows = (0..<count).map { Optional(base + $0 * rowBytes) }
            try rows.withUnsafeMutableBufferPointer { rows in
                var done = 0
                while done < count {
                    let read = try decompressor.readScanlines(into: rows.baseAddress! + done, count: count - done)
                    // A complete source never suspends; 0 rows would loop forever.
                    guard read > 0 else { throw ImagePipeError.badImageData(reason: "JPEG: decoder made no progress") }
                    done += read
                }
            }
            initialized = count * rowBytes
        }
        rowsRead += count
        if rowsRead % MappedFile.releaseRows < count { mapping?.releasePages() }
        if rowsRead == size.height {
            // What follows the image (junk before EOI, a missing EOI) only adds warnings, as in a
            // full decode; bytes after EOI are metadata not read.
            let finished = (try? decompressor.finishDecompress()) == true
            if !finished || decompressor.bytesLeft > 0 { holdsMetadata = true }
        }
        return PixelBuffer(unchecked: size.width, height: count, format: pixelFormat, bytes: bytes)
    }
}
