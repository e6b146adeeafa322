import ImagePipe
import PipelineCore

/// A URL's pixel work as one transformer the manager runs (and shares between identical requests):
/// rotate, resize per `ResizePlan`, crop by gravity, blur. Built from the core's transformers; the
/// plan depends on the source's size, so it is made when the image arrives.
struct ProcessingTransformer: ImageTransformer {
    let options: ProcessingOptions
    let maxOutputPixels: Int

    var key: String { "ImageServer.Processing(\(options.canonical))" }

    func transform(_ image: Image) throws -> Image {
        var current = image
        if options.rotate != 0 {
            current = try RotationTransformer(degreesClockwise: Double(options.rotate)).apply(to: current)
        }
        let plan = ResizePlan(source: current.displaySize, options: options)
        for size in [plan.scaled, plan.output] {
            let pixels = size.pixelCount ?? .max
            if pixels > maxOutputPixels {
                throw ImagePipeError.limitExceeded(.outputPixels, value: pixels, maximum: maxOutputPixels)
            }
        }
        if plan.scaled != current.displaySize {
            current = try ResizingTransformer(size: plan.scaled, scaleMode: .fill).apply(to: current)
        }
        if let crop = plan.cropSize {
            let origin =
                options.gravity == .smart && !current.isAnimated
                ? SmartCrop.origin(of: crop, in: try current.applyingOrientation().firstFrame)
                : ResizePlan.origin(of: crop, in: current.displaySize, gravity: options.gravity)
            let rect = ImageRect(x: origin.x, y: origin.y, width: crop.width, height: crop.height)
            current = try CroppingTransformer(rect: rect).apply(to: current)
        }
        if options.blur > 0 {
            current = try BlurTransformer(radius: options.blur).apply(to: current)
        }
        return current
    }
}
