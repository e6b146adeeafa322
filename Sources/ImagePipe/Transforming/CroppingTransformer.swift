/// Crops to a rectangle (SDWebImage's `SDImageCroppingTransformer`). Parts of the rectangle outside
/// the image are transparent, as upstream.
import PipelineCore

public struct CroppingTransformer: PixelTransformer, DescribedTransformer {
    public let rect: ImageRect

    public init(rect: ImageRect) {
        precondition(rect.width > 0 && rect.height > 0, "crop rectangle \(rect) has no pixels")
        self.rect = rect
    }

    public static let transformerDescription = TransformerDescription<Self>(
        name: "crop", keyName: "SDImageCroppingTransformer",
        parameters: [.rectangle("rect", offsets: TransformerSpec.offsets, sides: TransformerSpec.sides) { $0.rect }],
        make: { Self(rect: $0["rect"]) })

    /// The rectangle's size, whatever part of it lies outside the image.
    public func outputSize(for size: ImageSize) throws -> ImageSize { rect.size }

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let columns = Self.overlap(rect.x, rect.width, buffer.width)
        let rows = Self.overlap(rect.y, rect.height, buffer.height)
        let inside = columns.count == rect.width && rows.count == rect.height
        let format = inside ? buffer.format : buffer.format.withAlpha
        let source = buffer.converted(to: format)
        let bpp = format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: rect.width, height: rect.height, format: format))
        // Copy the rows' overlap with the image; everything else stays transparent zero.
        let (x0, x1, y0, y1) = (columns.lowerBound, columns.upperBound, rows.lowerBound, rows.upperBound)
        if x0 < x1 && y0 < y1 {
            source.bytes.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { output in
                    let count = (x1 - x0) * bpp
                    for y in y0..<y1 {
                        let from = (y * buffer.width + x0) * bpp
                        let to = ((y - rect.y) * rect.width + (x0 - rect.x)) * bpp
                        UnsafeMutableRawPointer(output.baseAddress! + to).copyMemory(from: input.baseAddress! + from, byteCount: count)
                    }
                }
            }
        }
        return PixelBuffer(unchecked: rect.width, height: rect.height, format: format, bytes: out)
    }

    /// The part of `start..<start + length` inside `0..<limit`, empty when none; without overflow,
    /// whatever the rectangle's numbers (they come from requests).
    static func overlap(_ start: Int, _ length: Int, _ limit: Int) -> Range<Int> {
        guard start < limit else { return limit..<limit }
        let (end, overflow) = start.addingReportingOverflow(length)
        let upper = overflow ? limit : min(end, limit)
        let lower = max(start, 0)
        return lower < upper ? lower..<upper : limit..<limit
    }
}
