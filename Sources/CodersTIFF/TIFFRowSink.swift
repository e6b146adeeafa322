import PipelineCore

/// Where decoded rows go: the full image, or, for a thumbnail much smaller than the page, the
/// core's row box shrinker, so a huge scan is never held whole (only a strip or a row of tiles).
///
/// A full image is written in place into the array being made, never zero-filled first (a
/// decode writes every byte of every row, and `collect` refuses a page short of rows), so the
/// sink's pointer is valid only inside `collect`'s closure.
struct TIFFRowSink {
    private let size: ImageSize
    private let format: PixelFormat
    private var shrinker: RowBoxShrinker?
    /// The full image's first byte, while `collect` is making it.
    private let image: UnsafeMutablePointer<UInt8>?
    /// The row being shrunk.
    private var scratch: [UInt8] = []
    private var rows = 0

    private init(size: ImageSize, format: PixelFormat, shrinker: RowBoxShrinker?, image: UnsafeMutablePointer<UInt8>?) {
        self.size = size
        self.format = format
        self.shrinker = shrinker
        self.image = image
        if shrinker != nil { scratch = [UInt8](repeating: 0, count: size.width * format.bytesPerPixel) }
    }

    /// The page of `size` decoded by `decode`, which must add every row, at `target`.
    static func collect(size: ImageSize, format: PixelFormat, target: ImageSize, _ decode: (inout TIFFRowSink) throws -> Void) throws -> PixelBuffer {
        var buffer: PixelBuffer
        let factors = RowBoxShrinker.factors(from: size, to: target)
        if target != size, factors.x > 1 || factors.y > 1 {
            var sink = TIFFRowSink(
                size: size, format: format,
                shrinker: try RowBoxShrinker(source: size, format: format, factorX: factors.x, factorY: factors.y), image: nil)
            try decode(&sink)
            try sink.requireEveryRow()
            buffer = try sink.shrinker!.finish()
        } else {
            let count = try PixelBuffer.byteCount(width: size.width, height: size.height, format: format)
            let bytes = try [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
                var sink = TIFFRowSink(size: size, format: format, shrinker: nil, image: storage.baseAddress!)
                try decode(&sink)
                try sink.requireEveryRow()
                initialized = count
            }
            buffer = try PixelBuffer(width: size.width, height: size.height, format: format, bytes: bytes)
        }
        if buffer.size != target { buffer = buffer.resampled(to: target) }
        return buffer
    }

    /// Lets `write` fill the next row: every byte of its `size.width` pixels of the format.
    mutating func addRow(_ write: (UnsafeMutablePointer<UInt8>) throws -> Void) rethrows {
        precondition(rows < size.height, "more rows than the page has")
        if shrinker != nil {
            try scratch.withUnsafeMutableBufferPointer { row in
                try write(row.baseAddress!)
                shrinker!.add(row: row.baseAddress!)
            }
        } else {
            try write(image! + rows * size.width * format.bytesPerPixel)
        }
        rows += 1
    }

    /// Adds a row already in the format: shrunk straight from where it is, or copied.
    mutating func addRow(copying row: UnsafePointer<UInt8>) {
        precondition(rows < size.height, "more rows than the page has")
        if shrinker != nil {
            shrinker!.add(row: row)
        } else {
            (image! + rows * size.width * format.bytesPerPixel).update(from: row, count: size.width * format.bytesPerPixel)
        }
        rows += 1
    }

    /// Rows go into the full image (no shrink), where `addRows` can write several in place.
    var holdsFullImage: Bool { shrinker == nil }

    /// Lets `write` fill every byte of the next `count` rows in place, given the first one's
    /// address (rows `size.width * bytesPerPixel` apart). Only when `holdsFullImage`.
    mutating func addRows(_ count: Int, _ write: (UnsafeMutableRawPointer) throws -> Void) rethrows {
        precondition(shrinker == nil && count >= 0 && rows + count <= size.height, "rows outside the page")
        try write(UnsafeMutableRawPointer(image! + rows * size.width * format.bytesPerPixel))
        rows += count
    }

    private func requireEveryRow() throws {
        guard rows == size.height else {
            throw ImagePipeError.badImageData(reason: "TIFF: \(rows) of the page's \(size.height) rows decoded")
        }
    }
}
