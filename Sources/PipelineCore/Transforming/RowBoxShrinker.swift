/// Box-averages rows by whole factors as they arrive, so a thumbnail of a huge image holds one
/// output row of sums instead of the full image. The core resampler then takes the result to the
/// exact size; like it, the factors leave at least 2x for that filter, so the box never decides the
/// final look.
///
/// Alpha images are averaged weighted by alpha (what premultiplying does), so colours under
/// transparent pixels do not bleed into the thumbnail. Decoders that read rows (PNG) or strips and
/// tiles (TIFF) feed it.
package struct RowBoxShrinker {
    package let format: PixelFormat
    package let sourceWidth: Int
    package let factorX: Int
    package let factorY: Int
    package let outputSize: ImageSize
    private(set) var output: [UInt8]
    /// Without alpha, while a box's sum fits 32 bits: each row is added to per-column sums (a
    /// loop the compiler vectorises), summed across the boxes once per row of boxes. Else the
    /// boxes' 64-bit sums are added to pixel by pixel.
    private let usesColumnSums: Bool
    private var columnSums: [UInt32]
    /// While a box's rows are at most `UInt16.max / 255` (257), a column's sum of one box row fits
    /// 16 bits: rows are added to these (twice the lanes a vector add takes) and widened into
    /// `columnSums` once per row of boxes.
    private var narrowColumnSums: [UInt16]
    private var sums: [UInt64]
    private var alphaSums: [UInt64]
    private var rowsInBox = 0
    private var outputRow = 0

    /// The whole factors for shrinking `source` towards `target` that still leave 2x for the filter.
    package static func factors(from source: ImageSize, to target: ImageSize) -> (x: Int, y: Int) {
        (max(source.width / max(target.width * 2, 1), 1), max(source.height / max(target.height * 2, 1), 1))
    }

    package init(source: ImageSize, format: PixelFormat, factorX: Int, factorY: Int) throws {
        self.format = format
        self.sourceWidth = source.width
        self.factorX = factorX
        self.factorY = factorY
        outputSize = ImageSize(width: (source.width + factorX - 1) / factorX, height: (source.height + factorY - 1) / factorY)
        output = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: outputSize.width, height: outputSize.height, format: format))
        let (boxPixels, overflow) = factorX.multipliedReportingOverflow(by: factorY)
        usesColumnSums = !format.hasAlpha && !overflow && boxPixels <= Int(UInt32.max) / 256
        columnSums = [UInt32](repeating: 0, count: usesColumnSums ? source.width * format.channelCount : 0)
        let narrow = usesColumnSums && factorY <= Int(UInt16.max) / 255
        narrowColumnSums = [UInt16](repeating: 0, count: narrow ? source.width * format.channelCount : 0)
        sums = [UInt64](repeating: 0, count: usesColumnSums ? 0 : outputSize.width * format.channelCount)
        alphaSums = [UInt64](repeating: 0, count: format.hasAlpha ? outputSize.width : 0)
    }

    /// Adds the next source row (`sourceWidth` pixels in `format`).
    package mutating func add(row: UnsafePointer<UInt8>) {
        let channels = format.channelCount
        if usesColumnSums {
            let samples = sourceWidth &* channels
            if !narrowColumnSums.isEmpty {
                narrowColumnSums.withUnsafeMutableBufferPointer { sums in
                    guard let sums = sums.baseAddress else { return }
                    for i in 0..<samples { sums[i] &+= UInt16(row[i]) }
                }
            } else {
                columnSums.withUnsafeMutableBufferPointer { sums in
                    guard let sums = sums.baseAddress else { return }
                    for i in 0..<samples { sums[i] &+= UInt32(row[i]) }
                }
            }
            rowsInBox += 1
            if rowsInBox == factorY { emitRow() }
            return
        }
        let hasAlpha = format.hasAlpha, sourceWidth = sourceWidth, factorX = factorX
        let colorChannels = hasAlpha ? channels - 1 : channels
        sums.withUnsafeMutableBufferPointer { sums in
            alphaSums.withUnsafeMutableBufferPointer { alphaSums in
                var x = 0, box = 0
                while x < sourceWidth {
                    let end = min(x + factorX, sourceWidth)
                    let d = box * channels
                    while x < end {
                        let s = x * channels
                        if hasAlpha {
                            let alpha = UInt64(row[s + colorChannels])
                            alphaSums[box] &+= alpha
                            for c in 0..<colorChannels { sums[d + c] &+= UInt64(row[s + c]) &* alpha }
                        } else {
                            for c in 0..<channels { sums[d + c] &+= UInt64(row[s + c]) }
                        }
                        x += 1
                    }
                    box += 1
                }
            }
        }
        rowsInBox += 1
        if rowsInBox == factorY { emitRow() }
    }

    /// The shrunk pixels; a last, shorter box of rows is averaged over the rows it has.
    package mutating func finish() throws -> PixelBuffer {
        if rowsInBox > 0 { emitRow() }
        return try PixelBuffer(width: outputSize.width, height: outputSize.height, format: format, bytes: output)
    }

    private mutating func emitRow() {
        guard outputRow < outputSize.height else { return }
        if usesColumnSums { return emitColumnSums() }
        let channels = format.channelCount
        let colorChannels = format.hasAlpha ? channels - 1 : channels
        let rowStart = outputRow * outputSize.width * channels
        let rows = UInt64(rowsInBox)
        for box in 0..<outputSize.width {
            let columns = UInt64(min(factorX, sourceWidth - box * factorX))
            let count = columns * rows
            let d = box * channels
            if format.hasAlpha {
                let alpha = alphaSums[box]
                for c in 0..<colorChannels {
                    output[rowStart + d + c] = alpha == 0 ? 0 : UInt8((sums[d + c] + alpha / 2) / alpha)
                }
                output[rowStart + d + colorChannels] = UInt8((alpha + count / 2) / count)
                alphaSums[box] = 0
            } else {
                for c in 0..<channels {
                    output[rowStart + d + c] = UInt8((sums[d + c] + count / 2) / count)
                }
            }
            for c in 0..<channels { sums[d + c] = 0 }
        }
        rowsInBox = 0
        outputRow += 1
    }

    /// `emitRow` for column sums: each box's columns averaged (as `Resampler.boxShrink` does), and
    /// the sums cleared.
    private mutating func emitColumnSums() {
        let channels = format.channelCount
        let rowStart = outputRow * outputSize.width * channels
        let rows = UInt32(rowsInBox), sourceWidth = sourceWidth, factorX = factorX, boxes = outputSize.width
        if !narrowColumnSums.isEmpty {
            narrowColumnSums.withUnsafeMutableBufferPointer { narrow in
                columnSums.withUnsafeMutableBufferPointer { wide in
                    guard let narrow = narrow.baseAddress, let wide = wide.baseAddress else { return }
                    for i in 0..<sourceWidth &* channels { wide[i] = UInt32(narrow[i]) }
                    narrow.update(repeating: 0, count: sourceWidth &* channels)
                }
            }
        }
        columnSums.withUnsafeMutableBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { output in
                guard let sums = sums.baseAddress, let out = output.baseAddress.map({ $0 + rowStart }) else { return }
                switch channels {
                case 1: Resampler.averageBlocks(sums, into: out, width: boxes, sourceWidth: sourceWidth, factor: factorX, rows: rows, channels: 1)
                case 2: Resampler.averageBlocks(sums, into: out, width: boxes, sourceWidth: sourceWidth, factor: factorX, rows: rows, channels: 2)
                case 3: Resampler.averageBlocks(sums, into: out, width: boxes, sourceWidth: sourceWidth, factor: factorX, rows: rows, channels: 3)
                default: Resampler.averageBlocks(sums, into: out, width: boxes, sourceWidth: sourceWidth, factor: factorX, rows: rows, channels: 4)
                }
                sums.update(repeating: 0, count: sourceWidth &* channels)
            }
        }
        rowsInBox = 0
        outputRow += 1
    }
}
