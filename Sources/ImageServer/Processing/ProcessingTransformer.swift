import ImagePipe
import PipelineCore

/// A URL's pixel work as one transformer the manager runs (and shares between identical requests),
/// in imgproxy's order: trim, rotate and flip (after the EXIF orientation), `c:`, resize, the `fill`
/// crop, blur, sharpen and pixelate, extend, extend to the aspect ratio, padding, flattening
/// onto `bg`, and the watermark. Built from the core's transformers; the plan depends on the source's size, so it is
/// made when the image arrives, and every size on the way is held to the output-pixel limit first.
struct ProcessingTransformer: ImageTransformer {
    let options: ProcessingOptions
    let maxOutputPixels: Int
    /// The server's watermark; nil when it has none (then `wm:` does nothing, as in imgproxy).
    var watermark: Watermark?

    var key: String { "ImageServer.Processing(\(options.canonical)\(watermark.map { ",wm=" + $0.digest } ?? ""))" }

    func transform(_ image: Image) throws -> Image {
        var current = image
        // `ar:0`: the pixels as stored; the orientation tag goes either way, as in imgproxy.
        if !options.autoRotate { current.orientation = .up }
        // First, on the whole image, as imgproxy does; animations are left untrimmed there too.
        if let trim = options.trim, !current.isAnimated {
            current = try TrimTransformer(trim: trim).apply(to: current)
        }
        if options.rotate != 0 {
            current = try RotationTransformer(degreesClockwise: Double(options.rotate)).apply(to: current)
        }
        if options.flipHorizontal || options.flipVertical {
            current = try FlippingTransformer(horizontal: options.flipHorizontal, vertical: options.flipVertical).apply(to: current)
        }
        let plan = ResizePlan(source: current.displaySize, options: options)
        for size in plan.stages {
            let pixels = size.pixelCount ?? .max
            if pixels > maxOutputPixels {
                throw ImagePipeError.limitExceeded(.outputPixels, value: pixels, maximum: maxOutputPixels)
            }
        }
        if let window = plan.sourceCrop, let crop = options.crop {
            // `c:` offsets are not scaled by dpr; without its own gravity the crop takes `g:`'s.
            current = try cut(current, to: window, gravity: crop.gravity ?? options.gravity, dprScale: 1)
        }
        if plan.scaled != current.displaySize {
            current = try ResizingTransformer(size: plan.scaled, scaleMode: .fill).apply(to: current)
        }
        if let window = plan.cropSize {
            current = try cut(current, to: window, gravity: options.gravity, dprScale: plan.dprScale)
        }
        if options.blur > 0 {
            current = try BlurTransformer(radius: options.blur).apply(to: current)
        }
        if options.sharpen > 0 {
            current = try SharpenTransformer(sigma: options.sharpen).apply(to: current)
        }
        if options.pixelate > 1 {
            current = try PixelateTransformer(size: options.pixelate).apply(to: current)
        }
        if let canvas = plan.extended {
            current = try embed(current, in: canvas, gravity: options.extend.gravity, dprScale: plan.dprScale)
        }
        if let canvas = plan.aspectExtended {
            current = try embed(current, in: canvas, gravity: options.extendAspectRatio.gravity, dprScale: plan.dprScale)
        }
        let padding = plan.padding
        if !padding.isZero {
            let size = current.displaySize
            let rect = ImageRect(
                x: -padding.left, y: -padding.top, width: size.width + padding.left + padding.right, height: size.height + padding.top + padding.bottom)
            current = try CroppingTransformer(rect: rect).apply(to: current)
        }
        if let background = options.background, current.hasAlpha {
            current = try FlattenTransformer(background: background).apply(to: current)
        }
        if let watermark, options.watermark.opacity > 0 {
            current = try WatermarkTransformer(mark: watermark, options: options.watermark, dprScale: plan.dprScale, maxOutputPixels: maxOutputPixels).apply(to: current)
        }
        return current
    }

    /// The `window`-sized part of `image` at `gravity` (the most detailed one for `sm`).
    private func cut(_ image: Image, to window: ImageSize, gravity: ProcessingOptions.Gravity, dprScale: Double) throws -> Image {
        let origin =
            gravity.type == .smart && !image.isAnimated
            ? SmartCrop.origin(of: window, in: try image.applyingOrientation().firstFrame)
            : ResizePlan.position(of: window, in: image.displaySize, gravity: gravity, dprScale: dprScale)
        return try CroppingTransformer(rect: ImageRect(x: origin.x, y: origin.y, width: window.width, height: window.height)).apply(to: image)
    }

    /// `image` on a transparent `canvas` at `gravity`: a crop reaching past the image.
    private func embed(_ image: Image, in canvas: ImageSize, gravity: ProcessingOptions.Gravity, dprScale: Double) throws -> Image {
        let origin = ResizePlan.position(of: image.displaySize, in: canvas, gravity: gravity, dprScale: dprScale)
        return try CroppingTransformer(rect: ImageRect(x: -origin.x, y: -origin.y, width: canvas.width, height: canvas.height)).apply(to: image)
    }
}
