import CJPEG
import Foundation
import PipelineCore

/// A gray, RGB or CMYK JPEG at full size, read a strip of rows at a time (`ImageRowSource`) from a
/// started decompressor. libjpeg holds one row group, or a progressive file's coefficients.
final class JPEGRowSource: ImageRowSource {
    let size: ImageSize
    let pixelFormat: PixelFormat
    let orientation: ImageOrientation
    let colorProfile: ImageColorProfile?
    private(set) var holdsMetadata: Bool
    private let extraWarnings: [ImageDecodeWarning]
    private let decompressor: JPEGDecompressor
    private let cmyk: JPEGCMYKRows?
    /// libjpeg's CMYK rows before they are turned into RGB.
    private var cmykStrip: [UInt8] = []
    private let mapping: MappedFile?
    private let checkpoint: DecodeCheckpoint
    private var rowsRead = 0
    /// When `nextRows` last returned: the time until the next call is the reader's, not the decode's.
    private var returned: ContinuousClock.Instant?

    init(
        decompressor: JPEGDecompressor, format: PixelFormat, cmyk: JPEGCMYKRows? = nil, orientation: ImageOrientation,
        colorProfile: ImageColorProfile?, holdsMetadata: Bool, warnings: [ImageDecodeWarning],
        checkpoint: DecodeCheckpoint, mapping: MappedFile?
    ) {
        self.checkpoint = checkpoint
        self.mapping = mapping
        self.holdsMetadata = holdsMetadata
        self.decompressor = decompressor
        self.cmyk = cmyk
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
            if let cmyk {
                try readCMYK(count, as: cmyk, into: base)
            } else {
                try read(count, into: base, rowBytes: rowBytes)
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

    /// Reads exactly `count` rows of `rowBytes` into `base`.
    private func read(_ count: Int, into base: UnsafeMutablePointer<UInt8>, rowBytes: Int) throws {
        var rows = (0..<count).map { Optional(base + $0 * rowBytes) }
        try rows.withUnsafeMutableBufferPointer { try JPEGDecoder.readRows(decompressor, into: $0.baseAddress!, count: count) }
    }

    /// Reads `count` CMYK rows and writes them into `base` as RGB.
    private func readCMYK(_ count: Int, as cmyk: JPEGCMYKRows, into base: UnsafeMutablePointer<UInt8>) throws {
        let cmykBytes = count * size.width * 4
        if cmykStrip.count < cmykBytes { cmykStrip = [UInt8](repeating: 0, count: cmykBytes) }
        try cmykStrip.withUnsafeMutableBufferPointer { strip in
            try read(count, into: strip.baseAddress!, rowBytes: size.width * 4)
            cmyk.convert(strip.baseAddress!, into: base, pixels: count * size.width)
        }
    }
}
