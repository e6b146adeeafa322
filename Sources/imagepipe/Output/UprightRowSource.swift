import PipelineCore

/// The rows of a source whose orientation turns it or flips it top to bottom (EXIF 3–8 but 2),
/// upright, for `RowStreamConversion`: its first row is stored last or as a column, so the stored
/// frame is read whole, once, on the first call, and each strip of upright rows is cut from it and
/// turned on its own. The frame is held once; the whole-image path holds it turned beside it.
final class UprightRowSource: ImageRowSource {
    private let source: any ImageRowSource
    private var frame: PixelBuffer?
    private var rowsGiven = 0
    let size: ImageSize

    init(_ source: any ImageRowSource) {
        self.source = source
        size = source.orientation.displaySize(for: source.size)
    }

    var pixelFormat: PixelFormat { source.pixelFormat }
    var orientation: ImageOrientation { .up }
    var colorProfile: ImageColorProfile? { source.colorProfile }
    var holdsMetadata: Bool { source.holdsMetadata }
    var warnings: [ImageDecodeWarning] { source.warnings }

    func nextRows(max maxRows: Int) throws -> PixelBuffer? {
        guard rowsGiven < size.height else { return nil }
        let frame = try self.frame ?? readFrame()
        let count = min(max(maxRows, 1), size.height - rowsGiven)
        let band = storedBand(of: frame, rows: rowsGiven, count: count)
        rowsGiven += count
        return band.applying(source.orientation)
    }

    /// Every stored row, in one buffer of the frame's size.
    private func readFrame() throws -> PixelBuffer {
        let stored = source.size, format = source.pixelFormat
        var bytes: [UInt8] = []
        bytes.reserveCapacity(try PixelBuffer.byteCount(width: stored.width, height: stored.height, format: format))
        while let strip = try source.nextRows(max: RowStreamConversion.stripRows) { bytes += strip.bytes }
        let frame = try PixelBuffer(width: stored.width, height: stored.height, format: format, bytes: bytes)
        self.frame = frame
        return frame
    }

    /// The stored pixels that upright rows `first ..< first + count` come from: stored rows counted
    /// from the bottom for a flip, stored columns for a turn (from the left for EXIF 5 and 6, from
    /// the right for 7 and 8). `applying` the orientation to them gives those upright rows.
    private func storedBand(of frame: PixelBuffer, rows first: Int, count: Int) -> PixelBuffer {
        let (width, height, bpp) = (frame.width, frame.height, frame.format.bytesPerPixel)
        switch source.orientation {
        case .up, .upMirrored:
            return PixelBuffer(unchecked: width, height: count, format: frame.format, bytes: Array(frame.bytes[first * width * bpp..<(first + count) * width * bpp]))
        case .down, .downMirrored:
            let top = height - first - count
            return PixelBuffer(unchecked: width, height: count, format: frame.format, bytes: Array(frame.bytes[top * width * bpp..<(top + count) * width * bpp]))
        case .leftMirrored, .right, .rightMirrored, .left:
            let left = source.orientation == .leftMirrored || source.orientation == .right ? first : width - first - count
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count * height * bpp)
            frame.bytes.withUnsafeBufferPointer { stored in
                for y in 0..<height {
                    let start = (y * width + left) * bpp
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: stored[start..<start + count * bpp]))
                }
            }
            return PixelBuffer(unchecked: count, height: height, format: frame.format, bytes: bytes)
        }
    }
}
