/// Tints with a colour (SDWebImage's `SDImageTintTransformer`).
import PipelineCore

public struct TintTransformer: PixelTransformer, DescribedTransformer {
    /// How the tint meets the image; raw values are Core Graphics' `CGBlendMode`, as printed in the key.
    public enum BlendMode: Int, Sendable, Hashable, CaseIterable {
        /// The tint over the image.
        case normal = 0
        /// The image's colours multiplied by the tint, by the tint's alpha.
        case multiply = 1
        /// The tint colour in the image's shape: colour from the tint, alpha = tint alpha x image alpha.
        /// SDWebImage's default: it turns icons into silhouettes.
        case sourceIn = 18
        /// The tint over the image, only where the image is: keeps the image's alpha and, with a
        /// translucent tint, its detail. What a photo tint wants.
        case sourceAtop = 20
    }

    package let color: ImageColor
    package let blendMode: BlendMode

    public init(color: ImageColor, blendMode: BlendMode = .sourceIn) {
        self.color = color
        self.blendMode = blendMode
    }

    /// Specs tint source-atop, not SDWebImage's source-in: a translucent tint keeps the photo.
    public static let transformerDescription = TransformerDescription<Self>(
        name: "tint", keyName: "SDImageTintTransformer",
        parameters: [
            .color("color") { $0.color },
            .fixed("blendMode", summary: "how the tint meets the image", default: BlendMode.sourceAtop) { "\($0.blendMode.rawValue)" },
        ],
        make: { Self(color: $0["color"], blendMode: $0["blendMode"]) })

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let needsColour = !(color.red == color.green && color.green == color.blue)
        let needsAlpha =
            buffer.format.hasAlpha || blendMode == .sourceIn && color.alpha != 255
            || blendMode == .normal && color.alpha != 255 && buffer.format.hasAlpha
        var format = buffer.format
        if needsColour { format = format.isGray ? (format.hasAlpha ? .rgba8 : .rgb8) : format }
        if needsAlpha { format = format.withAlpha }
        let source = buffer.converted(to: format)
        let channels = format.bytesPerPixel
        let colourChannels = format.hasAlpha ? channels - 1 : channels
        let tint = PixelBuffer.encode(ImageColor(red: color.red, green: color.green, blue: color.blue), as: format.withoutAlpha)
        let ta = UInt32(color.alpha)
        var out = source.bytes
        out.withUnsafeMutableBufferPointer { p in
            var o = 0
            while o < p.count {
                let sa = format.hasAlpha ? UInt32(p[o + channels - 1]) : 255
                for c in 0..<colourChannels {
                    let s = UInt32(p[o + c]), t = UInt32(tint[c])
                    switch blendMode {
                    case .sourceIn: p[o + c] = UInt8(t)
                    case .sourceAtop, .normal: p[o + c] = UInt8((t * ta + s * (255 - ta) + 127) / 255)
                    case .multiply: p[o + c] = UInt8(((s * t + 127) / 255 * ta + s * (255 - ta) + 127) / 255)
                    }
                }
                if format.hasAlpha {
                    switch blendMode {
                    case .sourceIn: p[o + channels - 1] = UInt8((sa * ta + 127) / 255)
                    case .normal: p[o + channels - 1] = UInt8(ta + (sa * (255 - ta) + 127) / 255)
                    case .sourceAtop, .multiply: break
                    }
                }
                o += channels
            }
        }
        return try PixelBuffer(width: buffer.width, height: buffer.height, format: format, bytes: out)
    }
}
