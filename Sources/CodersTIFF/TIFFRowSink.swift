import PipelineCore

/// Where decoded rows go: the full image, or, for a thumbnail much smaller than the page, the
/// core's row box shrinker, so a huge scan is never held whole (only a strip or a row of tiles).
struct TIFFRowSink {
    private let size: ImageSize
    private let format: PixelFormat
    private let target: ImageSize
    private var shrinker: RowBoxShrinker?
    private var pixels: [UInt8]
    /// The row being shrunk.
    private var scratch: [UInt8] = []
    private var rows = 0

    init(size: ImageSize, format: PixelFormat, target: ImageSize) throws {
        self.size = size
        self.format = format
        self.target = target
        let factors = RowBoxShrinker.factors(from: size, to: target)
        if target != size, factors.x > 1 || factors.y > 1 {
            shrinker = try RowBoxShrinker(source: size, format: format, factorX: factors.x, factorY: factors.y)
            pixels = []
            scratch = [UInt8](repeating: 0, count: size.width * format.bytesPerPixel)
        } else {
            pixels = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: size.width, height: size.height, format: format))
        }
    }

    /// Bytes this sink holds at most: the shrunk image, or the full one.
    static func heldBytes(size: ImageSize, format: PixelFormat, target: ImageSize) -> Int {
        let factors = RowBoxShrinker.factors(from: size, to: target)
        let held =
            target != size && (factors.x > 1 || factors.y > 1)
            ? ImageSize(width: (size.width + factors.x - 1) / factors.x, height: (size.height + factors.y - 1) / factors.y) : size
        guard let pixels = held.pixelCount else { return .max }
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: format.bytesPerPixel)
        return overflow ? .max : bytes
    }

    /// Lets `write` fill the next row (`size.width` pixels of the format).
    mutating func addRow(_ write: (UnsafeMutablePointer<UInt8>) throws -> Void) rethrows {
        precondition(rows < size.height, "more rows than the page has")
        let rowBytes = size.width * format.bytesPerPixel
        if shrinker != nil {
            try scratch.withUnsafeMutableBufferPointer { row in
                try write(row.baseAddress!)
                shrinker!.add(row: row.baseAddress!)
            }
        } else {
            try pixels.withUnsafeMutableBufferPointer { try write($0.baseAddress! + rows * rowBytes) }
        }
        rows += 1
    }

    /// The page at the target size.
    mutating func finish() throws -> PixelBuffer {
        var buffer: PixelBuffer
        if shrinker != nil {
            buffer = try shrinker!.finish()
        } else {
            buffer = try PixelBuffer(width: size.width, height: size.height, format: format, bytes: pixels)
        }
        if buffer.size != target { buffer = buffer.resampled(to: target) }
        return buffer
    }
}
