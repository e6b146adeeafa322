/// Mirrors horizontally and/or vertically (SDWebImage's `SDImageFlippingTransformer`).
public struct FlippingTransformer: PixelTransformer {
    public let horizontal: Bool
    public let vertical: Bool

    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    public var key: String { "SDImageFlippingTransformer(\(horizontal ? 1 : 0),\(vertical ? 1 : 0))" }

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        switch (horizontal, vertical) {
        case (false, false): buffer
        case (true, false): buffer.applying(.upMirrored)
        case (false, true): buffer.applying(.downMirrored)
        case (true, true): buffer.applying(.down)
        }
    }
}
