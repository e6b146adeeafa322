import ImagePipe
import PipelineCore

/// `wm:`: the server's watermark drawn over the result, last, as imgproxy draws it. With a scale
/// it is fitted (enlarging allowed) into that fraction of the result first. It is placed at its
/// gravity and may reach past the edges (offsets point inwards: pixels times dpr, or fractions of
/// the result), or with `re` tiled over the whole image from a tile centred on it, the offsets
/// being the gaps between tiles. Its alpha is multiplied by the URL's opacity times the server's.
struct WatermarkTransformer: PixelTransformer {
    let mark: Watermark
    let options: ProcessingOptions.Watermark
    /// The dpr the plan applied, which scales pixel offsets.
    let dprScale: Double
    let maxOutputPixels: Int

    var key: String { "ImageServer.Watermark(\(mark.digest),\(options.opacity),\(options.position.canonical),\(options.scale),\(dprScale))" }

    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let size = buffer.size
        let stamp = try scaledMark(for: size)
        let opacity = min(1, max(0, options.opacity * mark.opacity))
        let base = buffer.format.isGray ? buffer.converted(to: buffer.format.hasAlpha ? .rgba8 : .rgb8) : buffer
        guard options.position.type == .replicate else {
            let origin = ResizePlan.position(of: stamp.size, in: size, gravity: options.position, dprScale: dprScale, clamped: false)
            return try Self.draw(stamp, on: base, at: origin, every: nil, opacity: opacity)
        }
        let gapX = max(0, Self.offset(options.position.x, size.width, dprScale))
        let gapY = max(0, Self.offset(options.position.y, size.height, dprScale))
        let tile = ImageSize(width: stamp.width + gapX, height: stamp.height + gapY)
        // One tile centred on the image, the others repeating from it in every direction; each
        // tile is the mark with half of each gap on either side.
        let startX = (size.width - tile.width) / 2, startY = (size.height - tile.height) / 2
        return try Self.draw(stamp, on: base, at: (startX + gapX / 2, startY + gapY / 2), every: tile, opacity: opacity)
    }

    /// The mark at its own size, or fitted into `scale` of the result.
    private func scaledMark(for size: ImageSize) throws -> PixelBuffer {
        guard options.scale > 0 else { return mark.pixels }
        let boxWidth = max(1, ResizePlan.roundEven(Double(size.width) * options.scale))
        let boxHeight = max(1, ResizePlan.roundEven(Double(size.height) * options.scale))
        let factor = min(Double(boxWidth) / Double(mark.pixels.width), Double(boxHeight) / Double(mark.pixels.height))
        let fitted = ImageSize(
            width: max(1, ResizePlan.roundEven(Double(mark.pixels.width) * factor)),
            height: max(1, ResizePlan.roundEven(Double(mark.pixels.height) * factor)))
        let pixels = fitted.pixelCount ?? .max
        if pixels > maxOutputPixels { throw ImagePipeError.limitExceeded(.outputPixels, value: pixels, maximum: maxOutputPixels) }
        if fitted == mark.pixels.size { return mark.pixels }
        return try ResizingTransformer(size: fitted).transform(mark.pixels)
    }

    /// imgproxy's offset: 1 or more in magnitude is pixels times dpr, less a fraction of `side`.
    static func offset(_ value: Double, _ side: Int, _ dprScale: Double) -> Int {
        abs(value) >= 1 ? ResizePlan.roundEven(value * dprScale) : ResizePlan.roundEven(value * Double(side))
    }

    /// `stamp` (RGBA) composited over `base` (RGB or RGBA) with its top-left corner at `origin`,
    /// and again every `tile` in both directions when given; what falls outside `base` is left out.
    static func draw(_ stamp: PixelBuffer, on base: PixelBuffer, at origin: (x: Int, y: Int), every tile: ImageSize?, opacity: Double) throws -> PixelBuffer {
        var left = 0, top = 0, right = base.width, bottom = base.height
        if tile == nil {
            (left, top) = (max(0, origin.x), max(0, origin.y))
            (right, bottom) = (min(base.width, origin.x + stamp.width), min(base.height, origin.y + stamp.height))
        }
        guard left < right, top < bottom, opacity > 0 else { return base }
        let channels = base.format.bytesPerPixel
        let hasAlpha = base.format.hasAlpha
        var out = base.bytes
        try out.withUnsafeMutableBufferPointer { pixels in
            try stamp.bytes.withUnsafeBufferPointer { mark in
                for y in top..<bottom {
                    if y & 63 == 0 { try DecodeCancellation.checkCurrent() }
                    var markY = y - origin.y
                    if let tile { markY = ((markY % tile.height) + tile.height) % tile.height }
                    guard markY < stamp.height else { continue }
                    for x in left..<right {
                        var markX = x - origin.x
                        if let tile { markX = ((markX % tile.width) + tile.width) % tile.width }
                        guard markX < stamp.width else { continue }
                        let source = (markY * stamp.width + markX) * 4
                        let alpha = Double(mark[source + 3]) / 255 * opacity
                        if alpha == 0 { continue }
                        let target = (y * base.width + x) * channels
                        if hasAlpha {
                            // Straight alpha: the mark over what is there, weighted by its coverage.
                            let below = Double(pixels[target + 3]) / 255
                            let covered = alpha + below * (1 - alpha)
                            for channel in 0..<3 {
                                let value = (Double(mark[source + channel]) * alpha + Double(pixels[target + channel]) * below * (1 - alpha)) / covered
                                pixels[target + channel] = UInt8(min(255, max(0, value.rounded())))
                            }
                            pixels[target + 3] = UInt8(min(255, max(0, (covered * 255).rounded())))
                        } else {
                            for channel in 0..<3 {
                                let value = Double(mark[source + channel]) * alpha + Double(pixels[target + channel]) * (1 - alpha)
                                pixels[target + channel] = UInt8(min(255, max(0, value.rounded())))
                            }
                        }
                    }
                }
            }
        }
        return try PixelBuffer(width: base.width, height: base.height, format: base.format, bytes: out)
    }
}
