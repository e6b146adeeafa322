import Foundation
import PipelineCore

/// One-shot PNG decoding: the full image, or a thumbnail shrunk while the rows stream past.
enum PNGDecoder {
    /// Rows read per libpng call: enough to amortise the call, few enough to stay small and to
    /// check for cancellation and the time budget often.
    static let stripRows = 16

    /// libpng reads image data in 8 KiB pieces and loses a piece the file cannot fill whole; a
    /// file cut short is read in pieces this small, so the rows before the cut are shown.
    static let cutFileReadSize = 256

    /// The IEND chunk as every complete PNG ends: empty, with its fixed CRC.
    private static let iendChunk: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

    /// The pieces libpng reads `data`'s image data in: its default for a file ending with a whole
    /// IEND chunk, else `cutFileReadSize`. Chosen before the one pass over the file, so a file cut
    /// short costs one decode, not a full-size attempt and then a second one.
    static func readSize(for data: Data) -> Int? {
        data.count >= iendChunk.count && data.suffix(iendChunk.count).elementsEqual(iendChunk) ? nil : cutFileReadSize
    }

    /// The most libpng may inflate for one chunk: an ICC profile within the options' profile limit
    /// (libpng drops a longer one with a warning), and never more than the decoder memory.
    static func maxChunkBytes(_ options: ImageDecodeOptions) -> Int {
        min(options.maxDecoderMemory, max(options.maxColorProfileBytes, 1 << 20))
    }

    /// Refuses, from the IHDR alone, a size over the pixel limit and a working set over the
    /// decoder memory limit.
    static func preflight(_ data: Data, options: ImageDecodeOptions) throws {
        guard let header = PNGHeader(data) else { return }
        try options.checkPixelLimit(header.size)
        try options.checkDecoderMemory(header.decoderMemoryEstimate ?? .max)
    }

    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        try preflight(data, options: options)
        let checkpoint = DecodeCheckpoint(options: options)
        let metadata = PNGMetadataChunks(data).metadata(in: data, options: options)
        var warnings: [ImageDecodeWarning] = []
        var profile: ImageColorProfile?
        var profileWarning: ImageDecodeWarning?
        let buffer = try data.withUnsafeBytes { bytes -> PixelBuffer in
            let reader = try PNGReader(bytes, readSize: readSize(for: data), maxChunkBytes: maxChunkBytes(options))
            let layout = try reader.readHeader()
            (profile, profileWarning) = reader.colorProfile(options: options)
            try options.checkPixelLimit(layout.size)
            let target = options.targetSize(for: layout.size)
            let factors = RowBoxShrinker.factors(from: layout.size, to: target)
            var pixels: PixelBuffer
            var rowsRead: Int?
            // Adam7 spreads every row over seven passes, so rows cannot be shrunk as they arrive;
            // interlaced thumbnails decode in full first.
            if target != layout.size, !layout.isInterlaced, factors.x > 1 || factors.y > 1 {
                (pixels, rowsRead) = try readShrinking(reader, layout: layout, factorX: factors.x, factorY: factors.y, checkpoint: checkpoint)
            } else {
                (pixels, rowsRead) = try readFull(reader, layout: layout, checkpoint: checkpoint)
            }
            if rowsRead == nil, try !reader.finish() { rowsRead = layout.size.height }
            warnings = reader.warnings + (profileWarning.map { [$0] } ?? []) + metadata.warnings
            if reader.stoppedAfterRows {
                warnings.append(ImageDecodeWarning(.corruptData, message: "PNG: image data goes on after the last row; the rest of the file was not read"))
            }
            if let rowsRead { warnings.append(try truncation(rowsRead: rowsRead, layout: layout)) }
            if pixels.size != target { pixels = pixels.resampled(to: target) }
            return pixels
        }
        return Image(
            buffer, format: .png, orientation: metadata.orientation ?? .up, scale: options.scaleFactor,
            metadata: ImageMetadata(
                decodeOptions: options, warnings: warnings, colorProfile: profile,
                exif: metadata.exif, xmp: metadata.xmp, hasUnreadMetadata: metadata.hasUnread,
                colorModel: PNGHeader(data)?.colorModel))
    }

    /// A truncated file shows the rows that arrived, as browsers and libvips do, with a warning;
    /// rows of a non-interlaced image are whole or absent, so the rest are left zero (black, or
    /// transparent with alpha). An interlaced file's rows are all unfinished, so it is refused.
    static func truncation(rowsRead: Int, layout: PNGLayout) throws -> ImageDecodeWarning {
        guard !layout.isInterlaced || rowsRead >= layout.size.height else {
            throw ImagePipeError.badImageData(reason: "PNG: interlaced file is truncated")
        }
        guard rowsRead > 0 else { throw ImagePipeError.badImageData(reason: "PNG: file is truncated before its first row") }
        if rowsRead >= layout.size.height {
            return ImageDecodeWarning(.truncated, message: "PNG: file is truncated after the last row")
        }
        return ImageDecodeWarning(.truncated, message: "PNG: file is truncated: \(rowsRead) of \(layout.size.height) rows decoded, the rest left blank")
    }

    /// The full image, and the rows read when the file ended early (nil when it did not).
    static func readFull(_ reader: PNGReader, layout: PNGLayout, checkpoint: DecodeCheckpoint) throws -> (PixelBuffer, Int?) {
        let byteCount = try PixelBuffer.byteCount(width: layout.size.width, height: layout.size.height, format: layout.format)
        var rowsRead: Int?
        let bytes = try [UInt8](unsafeUninitializedCapacity: byteCount) { storage, initialized in
            guard let base = storage.baseAddress else { return }
            var rows = (0..<layout.size.height).map { Optional(base + $0 * layout.bytesPerRow) }
            // libpng writes every byte of every row or fails; on failure the bytes are dropped,
            // unless the file was cut short: then the missing rows are zeroed.
            let complete = try rows.withUnsafeMutableBufferPointer { rows -> Bool in
                for _ in 0..<layout.passes {
                    var next = 0
                    while next < layout.size.height {
                        try checkpoint.check()
                        let count = min(layout.size.height - next, stripRows)
                        guard try reader.readRows(into: rows.baseAddress! + next, count: count) else { return false }
                        next += count
                    }
                }
                return true
            }
            if !complete {
                let read = min(reader.rowsRead, layout.size.height)
                let whole = read * layout.bytesPerRow
                (base + whole).initialize(repeating: 0, count: byteCount - whole)
                rowsRead = read
            }
            initialized = byteCount
        }
        return (try PixelBuffer(width: layout.size.width, height: layout.size.height, format: layout.format, bytes: bytes), rowsRead)
    }

    /// The image shrunk row by row, and the rows read when the file ended early (nil when it did not).
    private static func readShrinking(
        _ reader: PNGReader, layout: PNGLayout, factorX: Int, factorY: Int,
        checkpoint: DecodeCheckpoint
    ) throws -> (PixelBuffer, Int?) {
        var shrinker = try RowBoxShrinker(source: layout.size, format: layout.format, factorX: factorX, factorY: factorY)
        let stripRows = min(Self.stripRows, layout.size.height)
        let strip = UnsafeMutablePointer<UInt8>.allocate(capacity: layout.bytesPerRow * stripRows)
        defer { strip.deallocate() }
        var rows = (0..<stripRows).map { Optional(strip + $0 * layout.bytesPerRow) }
        var remaining = layout.size.height
        while remaining > 0 {
            try checkpoint.check()
            let count = min(remaining, stripRows)
            let complete = try rows.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, count: count) }
            let done = complete ? count : min(max(reader.rowsRead - (layout.size.height - remaining), 0), count)
            for row in 0..<done { shrinker.add(row: strip + row * layout.bytesPerRow) }
            remaining -= done
            if !complete {
                let read = layout.size.height - remaining
                strip.initialize(repeating: 0, count: layout.bytesPerRow)
                for _ in 0..<remaining { shrinker.add(row: strip) }
                return (try shrinker.finish(), read)
            }
        }
        return (try shrinker.finish(), nil)
    }
}
