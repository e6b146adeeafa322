import Foundation
import PipelineCore

/// Rounds corners, optionally with a border (SDWebImage's `SDImageRoundCornerTransformer`).
/// Edges are anti-aliased by pixel coverage; outside the rounded rectangle is transparent.
public struct RoundCornerTransformer: PixelTransformer, DescribedTransformer {
    /// Which corners; raw values are UIKit's `UIRectCorner`, as printed in SDWebImage's key.
    public struct Corners: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let topLeft = Corners(rawValue: 1 << 0)
        public static let topRight = Corners(rawValue: 1 << 1)
        public static let bottomLeft = Corners(rawValue: 1 << 2)
        public static let bottomRight = Corners(rawValue: 1 << 3)
        /// UIKit's `UIRectCornerAllCorners` is `~0`.
        public static let allCorners = Corners(rawValue: ~0)
    }

    public let radius: Double
    package let corners: Corners
    package let borderWidth: Double
    package let borderColor: ImageColor

    public init(radius: Double, corners: Corners = .allCorners, borderWidth: Double = 0, borderColor: ImageColor = .clear) {
        self.radius = max(radius, 0)
        self.corners = corners
        self.borderWidth = max(borderWidth, 0)
        self.borderColor = borderColor
    }

    public static let transformerDescription = TransformerDescription<Self>(
        name: "round", keyName: "SDImageRoundCornerTransformer",
        parameters: [
            .number("radius", placeholder: "R", unit: "pixels", in: 0...Double(TransformerSpec.maxCoordinate)) { $0.radius },
            .fixed("corners", summary: "corners rounded", default: Corners.allCorners) { "\($0.corners.rawValue)" },
            .fixed("borderWidth", summary: "border width in pixels", default: 0.0) { keyNumber($0.borderWidth) },
            .fixed("borderColor", summary: "border colour", default: ImageColor.clear) { $0.borderColor.keyDescription },
        ],
        make: { Self(radius: $0["radius"], corners: $0["corners"], borderWidth: $0["borderWidth"], borderColor: $0["borderColor"]) })

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let format = buffer.format.isGray && borderWidth > 0 && !Self.isGray(borderColor) ? PixelFormat.rgba8 : buffer.format.withAlpha
        let source = buffer.converted(to: format)
        let (w, h) = (Double(buffer.width), Double(buffer.height))
        let r = min(radius, w / 2, h / 2)
        let channels = format.bytesPerPixel
        let border = PixelBuffer.encode(borderColor, as: format)
        var out = source.bytes
        out.withUnsafeMutableBufferPointer { p in
            for y in 0..<buffer.height {
                for x in 0..<buffer.width {
                    let d = signedDistance(x: Double(x) + 0.5, y: Double(y) + 0.5, width: w, height: h, radius: r)
                    let shape = min(max(d + 0.5, 0), 1)
                    let inner = borderWidth > 0 ? min(max(d - borderWidth + 0.5, 0), 1) : shape
                    if shape == 1 && inner == 1 { continue }
                    let o = (y * buffer.width + x) * channels
                    let a = Double(p[o + channels - 1]) / 255
                    let ringAlpha = (shape - inner) * Double(border[channels - 1]) / 255
                    let outAlpha = a * inner + ringAlpha
                    for c in 0..<(channels - 1) {
                        let premultiplied = Double(p[o + c]) * a * inner + Double(border[c]) * ringAlpha
                        p[o + c] = outAlpha > 0 ? UInt8(min(premultiplied / outAlpha, 255).rounded()) : 0
                    }
                    p[o + channels - 1] = UInt8((outAlpha * 255).rounded())
                }
            }
        }
        return try PixelBuffer(width: buffer.width, height: buffer.height, format: format, bytes: out)
    }

    /// Distance from (x, y) inward to the rounded rectangle's edge; negative outside.
    private func signedDistance(x: Double, y: Double, width: Double, height: Double, radius: Double) -> Double {
        let edge = min(x, width - x, y, height - y)
        guard radius > 0 else { return edge }
        let left = x < radius, right = x > width - radius, top = y < radius, bottom = y > height - radius
        let corner: (Double, Double)?
        switch (left, right, top, bottom) {
        case (true, _, true, _) where corners.contains(.topLeft): corner = (radius, radius)
        case (_, true, true, _) where corners.contains(.topRight): corner = (width - radius, radius)
        case (true, _, _, true) where corners.contains(.bottomLeft): corner = (radius, height - radius)
        case (_, true, _, true) where corners.contains(.bottomRight): corner = (width - radius, height - radius)
        default: corner = nil
        }
        guard let (cx, cy) = corner else { return edge }
        return radius - ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
    }

    private static func isGray(_ color: ImageColor) -> Bool { color.red == color.green && color.green == color.blue }
}
