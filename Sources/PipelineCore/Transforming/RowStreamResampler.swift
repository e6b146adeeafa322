/// A resample whose source arrives row by row, as a decoder writes it, and is never held whole.
///
/// The vertical pass keeps only the rows its filter window spans, in a ring that stays in cache
/// (the decoder writes straight into it), so the full-size decode is neither stored nor read back
/// from memory. Its output rows are filtered horizontally 16 at a time, transposed: a source column
/// of the block becomes one row, and the vertical kernel weighs 16 bytes a tap instead of a pixel.
///
/// The output equals `PixelBuffer.resampled(to:filter:)` byte for byte (the same weights, sums and
/// rounding, in the same order of passes); `init` returns nil where that does anything else first.
package final class RowStreamResampler {
    private let sourceHeight: Int
    private let target: ImageSize
    private let format: PixelFormat
    private let rowBytes: Int
    private let vertical: Resampler.Coefficients
    private let horizontal: Resampler.Coefficients?
    /// Source rows `ringRows` deep, each also copied `ringRows` rows further on, so that any window
    /// of up to `ringRows` consecutive rows is contiguous.
    private let ring: UnsafeMutablePointer<UInt8>
    private let ringRows: Int
    /// Where one fill's rows go.
    private let fillRows: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    /// Vertically filtered rows waiting for the horizontal pass, then the block transposed, then
    /// its horizontal result (still transposed).
    private let block: UnsafeMutablePointer<UInt8>
    private let columns: UnsafeMutablePointer<UInt8>
    private let filteredColumns: UnsafeMutablePointer<UInt8>
    private static let blockRows = 16
    private var output: [UInt8]
    private var received = 0
    private var produced = 0
    private var pending = 0

    /// Most rows one `fill` asks for.
    package let rowsPerFill: Int

    /// nil unless the resample from `source` to `target` is a vertical reduction of pixels without
    /// alpha that needs no whole-factor box shrink first.
    package init?(source: ImageSize, format: PixelFormat, target: ImageSize, filter: ResamplingFilter, rowsPerFill: Int) {
        guard !format.hasAlpha, target.width > 0, target.height > 0, target.height < source.height,
            source.width > 0, source.width / (target.width * 2) <= 1, source.height / (target.height * 2) <= 1
        else { return nil }
        sourceHeight = source.height
        self.target = target
        self.format = format
        rowBytes = source.width * format.bytesPerPixel
        vertical = Resampler.coefficients(inSize: source.height, outSize: target.height, filter: filter)
        horizontal = source.width == target.width ? nil : Resampler.coefficients(inSize: source.width, outSize: target.width, filter: filter)
        self.rowsPerFill = min(max(rowsPerFill, 1), 16)
        // A window spans at most `stride` rows; a fill's rows all arrive before any window is filtered.
        ringRows = vertical.stride + self.rowsPerFill
        ring = .allocate(capacity: 2 * ringRows * rowBytes)
        fillRows = .allocate(capacity: self.rowsPerFill)
        block = .allocate(capacity: Self.blockRows * rowBytes)
        columns = .allocate(capacity: Self.blockRows * rowBytes)
        filteredColumns = .allocate(capacity: Self.blockRows * target.width * format.bytesPerPixel)
        output = [UInt8](repeating: 0, count: target.width * target.height * format.bytesPerPixel)
    }

    deinit {
        ring.deallocate()
        fillRows.deallocate()
        block.deallocate()
        columns.deallocate()
        filteredColumns.deallocate()
    }

    /// Source rows still to come.
    package var rowsLeft: Int { sourceHeight - received }

    /// Lets `write` put the next source rows (at most `rowsPerFill`, and no more than are left) at
    /// the row pointers it is given, and return how many it wrote. Output rows are filtered as
    /// their windows complete.
    package func fill(_ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, Int) throws -> Int) rethrows {
        let count = min(rowsPerFill, rowsLeft)
        guard count > 0 else { return }
        for k in 0..<count { fillRows[k] = ring + ((received + k) % ringRows) * rowBytes }
        let written = min(max(try write(fillRows, count), 0), count)
        for k in 0..<written {
            let slot = (received + k) % ringRows
            (ring + (slot + ringRows) * rowBytes).update(from: ring + slot * rowBytes, count: rowBytes)
        }
        received += written
        filterCompleteRows()
    }

    /// The resampled image; call once every source row has arrived.
    package func finish() -> PixelBuffer {
        precondition(rowsLeft == 0 && produced == target.height, "the resample's source is incomplete")
        return PixelBuffer(unchecked: target.width, height: target.height, format: format, bytes: output)
    }

    private func filterCompleteRows() {
        let outRowBytes = target.width * format.bytesPerPixel
        output.withUnsafeMutableBufferPointer { out in
            vertical.weights.withUnsafeBufferPointer { weights in
                guard let result = out.baseAddress, let w = weights.baseAddress else { return }
                while produced + pending < target.height {
                    let y = produced + pending
                    guard vertical.starts[y] + vertical.counts[y] <= received else { return }
                    let first = ring + (vertical.starts[y] % ringRows) * rowBytes
                    let into = horizontal == nil ? result + y * outRowBytes : block + pending * rowBytes
                    Resampler.filterColumns(from: first, rowBytes: rowBytes, count: vertical.counts[y], weights: w + y * vertical.stride, into: into)
                    if horizontal == nil {
                        produced += 1
                        continue
                    }
                    pending += 1
                    if pending == Self.blockRows || produced + pending == target.height {
                        filterBlock(into: result + produced * outRowBytes)
                    }
                }
            }
        }
    }

    /// The horizontal pass over the `pending` rows in `block`, into as many output rows from `rows`.
    private func filterBlock(into rows: UnsafeMutablePointer<UInt8>) {
        guard let horizontal else { return }
        let channels = format.bytesPerPixel, sourceWidth = rowBytes / channels
        let columnBytes = pending * channels
        // A constant channel count per call, so the byte loops unroll.
        if channels == 1 {
            Self.transpose(block, rowBytes: rowBytes, rows: pending, width: sourceWidth, into: columns, channels: 1)
        } else {
            Self.transpose(block, rowBytes: rowBytes, rows: pending, width: sourceWidth, into: columns, channels: 3)
        }
        horizontal.weights.withUnsafeBufferPointer { weights in
            guard let w = weights.baseAddress else { return }
            for x in 0..<target.width {
                Resampler.filterColumns(
                    from: columns + horizontal.starts[x] * columnBytes, rowBytes: columnBytes, count: horizontal.counts[x],
                    weights: w + x * horizontal.stride, into: filteredColumns + x * columnBytes)
            }
        }
        let outRowBytes = target.width * channels
        if channels == 1 {
            Self.untranspose(filteredColumns, rows: pending, width: target.width, into: rows, rowBytes: outRowBytes, channels: 1)
        } else {
            Self.untranspose(filteredColumns, rows: pending, width: target.width, into: rows, rowBytes: outRowBytes, channels: 3)
        }
        produced += pending
        pending = 0
    }

    /// `rows` rows of `width` pixels as `width` rows of `rows` pixels: row `r`'s pixels go to
    /// `out + r * channels`, `columnBytes` apart.
    @inline(__always)
    private static func transpose(_ block: UnsafePointer<UInt8>, rowBytes: Int, rows: Int, width: Int, into out: UnsafeMutablePointer<UInt8>, channels: Int) {
        copyPixels(
            rows: rows, width: width, channels: channels, from: block, lineBytes: rowBytes, pixelBytes: channels,
            into: out, lineBytes: channels, pixelBytes: rows &* channels)
    }

    /// The inverse of `transpose`, into rows `rowBytes` apart.
    @inline(__always)
    private static func untranspose(_ columns: UnsafePointer<UInt8>, rows: Int, width: Int, into out: UnsafeMutablePointer<UInt8>, rowBytes: Int, channels: Int) {
        copyPixels(
            rows: rows, width: width, channels: channels, from: columns, lineBytes: channels, pixelBytes: rows &* channels,
            into: out, lineBytes: rowBytes, pixelBytes: channels)
    }

    /// `rows` lines of `width` pixels of `channels` bytes from one strided layout to another.
    @inline(__always)
    private static func copyPixels(
        rows: Int, width: Int, channels: Int,
        from source: UnsafePointer<UInt8>, lineBytes sourceLine: Int, pixelBytes sourcePixel: Int,
        into destination: UnsafeMutablePointer<UInt8>, lineBytes destinationLine: Int, pixelBytes destinationPixel: Int
    ) {
        for r in 0..<rows {
            var from = source + r &* sourceLine
            var to = destination + r &* destinationLine
            for _ in 0..<width {
                for c in 0..<channels { to[c] = from[c] }
                from += sourcePixel
                to += destinationPixel
            }
        }
    }
}
