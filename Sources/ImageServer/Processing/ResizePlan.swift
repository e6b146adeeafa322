import Foundation
import PipelineCore

/// The geometry of one request, computed from the upright source size alone, by imgproxy's rules
/// (`processing/prepare.go`, `crop.go`, `extend.go`, `padding.go`): the window `c:` keeps, the
/// size to resample to, the window `fill` keeps, the canvas `ex:`/`exar:` embed into and the
/// padding. dpr scales the box but never past the source without `enlarge`; `mw`/`mh` may enlarge.
struct ResizePlan: Hashable, Sendable {
    /// The `c:` window's size, before resizing; nil keeps the whole source.
    var sourceCrop: ImageSize?
    var scaled: ImageSize
    /// The part of `scaled` kept (`fill`, `fill-down`, and any type past the box); nil keeps all of it.
    var cropSize: ImageSize?
    /// The dpr actually applied: it multiplies gravity offsets, extend offsets and padding.
    var dprScale: Double
    /// The canvas `ex:` and then `exar:` embed the image in; nil when neither grows it.
    var extended: ImageSize?
    var aspectExtended: ImageSize?
    /// Sides in pixels, dpr applied.
    var padding: ProcessingOptions.Padding

    var cropped: ImageSize { cropSize ?? scaled }
    /// The result's size.
    var output: ImageSize {
        let inner = aspectExtended ?? extended ?? cropped
        return ImageSize(width: inner.width + padding.left + padding.right, height: inner.height + padding.top + padding.bottom)
    }

    /// Every size the work passes through, for the output-pixel limit.
    var stages: [ImageSize] { [scaled, output] + [extended, aspectExtended].compactMap { $0 } }

    /// The plan for `source`; a result past `options.limits.maxResultDimension` on either side is
    /// scaled down to fit, padding and extend included, no side under 1 pixel (imgproxy's `limitScale`).
    init(source: ImageSize, options: ProcessingOptions) {
        let cropWidth = options.crop.map { Self.cropSide(source.width, $0.width) } ?? 0
        let cropHeight = options.crop.map { Self.cropSide(source.height, $0.height) } ?? 0
        let base = ImageSize(width: cropWidth > 0 ? cropWidth : source.width, height: cropHeight > 0 ? cropHeight : source.height)

        let (wscale, hscale, dprScale) = Self.scale(base, options)
        var plan = Self(source: source, base: base, options: options, wscale: wscale, hscale: hscale, dprScale: dprScale)
        let limit = options.limits.maxResultDimension
        let longest = max(plan.output.width, plan.output.height)
        if limit > 0 && longest > limit {
            let downScale = Double(limit) / Double(longest)
            plan = Self(
                source: source, base: base, options: options, wscale: max(wscale * downScale, 1 / Double(base.width)),
                hscale: max(hscale * downScale, 1 / Double(base.height)), dprScale: dprScale * downScale)
        }
        self = plan
    }

    /// The plan at these scales: imgproxy's `calcSizes`.
    private init(source: ImageSize, base: ImageSize, options: ProcessingOptions, wscale: Double, hscale: Double, dprScale: Double) {
        sourceCrop = base == source ? nil : base
        self.dprScale = dprScale
        scaled = ImageSize(width: Self.side(Double(base.width) * wscale), height: Self.side(Double(base.height) * hscale))

        let targetWidth = Self.round(Double(options.width) * dprScale * options.zoomX)
        let targetHeight = Self.round(Double(options.height) * dprScale * options.zoomY)
        var cropW = targetWidth, cropH = targetHeight
        if options.resizingType == .fillDown && !options.enlarge && targetWidth > 0 && targetHeight > 0 {
            // Unrounded, as imgproxy compares: 200×100 to 300×125 keeps 200×83, not 199×83.
            let exactW = Double(base.width) * wscale, exactH = Double(base.height) * hscale
            let diffW = Double(targetWidth) / exactW, diffH = Double(targetHeight) / exactH
            if diffW > diffH && diffW > 1 {
                (cropW, cropH) = (scaled.width, Self.round(exactW * Double(targetHeight) / Double(targetWidth)))
            } else if diffH > diffW && diffH > 1 {
                (cropW, cropH) = (Self.round(exactH * Double(targetWidth) / Double(targetHeight)), scaled.height)
            }
        }
        let kept = ImageSize(width: cropW > 0 ? min(cropW, scaled.width) : scaled.width, height: cropH > 0 ? min(cropH, scaled.height) : scaled.height)
        cropSize = kept == scaled ? nil : kept

        var current = kept
        if options.extend.enabled {
            let canvas = ImageSize(width: max(current.width, targetWidth), height: max(current.height, targetHeight))
            if canvas != current {
                extended = canvas
                current = canvas
            }
        }
        if options.extendAspectRatio.enabled && targetWidth > 0 && targetHeight > 0 {
            let ratio = Double(targetWidth) / Double(targetHeight)
            let own = Double(current.width) / Double(current.height)
            var canvas = current
            if own < ratio {
                canvas.width = Self.round(Double(current.height) * ratio)
            } else if own > ratio {
                canvas.height = Self.round(Double(current.width) / ratio)
            }
            if canvas != current { aspectExtended = canvas }
        }
        let p = options.padding
        padding = ProcessingOptions.Padding(
            top: Self.roundEven(Double(p.top) * dprScale), right: Self.roundEven(Double(p.right) * dprScale),
            bottom: Self.roundEven(Double(p.bottom) * dprScale), left: Self.roundEven(Double(p.left) * dprScale))
    }

    /// imgproxy's `calcScale`: the scale on each axis and the dpr applied.
    static func scale(_ source: ImageSize, _ options: ProcessingOptions) -> (Double, Double, Double) {
        let (srcW, srcH) = (Double(source.width), Double(source.height))
        let dstW = options.width == 0 ? srcW : Double(options.width)
        let dstH = options.height == 0 ? srcH : Double(options.height)
        var wshrink = dstW == srcW ? 1 : srcW / dstW
        var hshrink = dstH == srcH ? 1 : srcH / dstH
        if wshrink != 1 || hshrink != 1 {
            var type = options.resizingType
            if type == .auto {
                // A square counts as landscape.
                type = (srcW - srcH >= 0) == (dstW - dstH >= 0) ? .fill : .fit
            }
            if options.width == 0 && type != .force {
                wshrink = hshrink
            } else if options.height == 0 && type != .force {
                hshrink = wshrink
            } else if type == .fit {
                wshrink = max(wshrink, hshrink)
                hshrink = wshrink
            } else if type == .fill || type == .fillDown {
                wshrink = min(wshrink, hshrink)
                hshrink = wshrink
            }
        }
        wshrink /= options.zoomX
        hshrink /= options.zoomY
        var dprScale = options.dpr
        if !options.enlarge {
            let minShrink = min(wshrink, hshrink)
            if minShrink < 1 {
                wshrink /= minShrink
                hshrink /= minShrink
                if !options.extend.enabled { dprScale /= minShrink }
            }
            // The largest dpr that does not enlarge.
            dprScale = min(dprScale, min(wshrink, hshrink))
        }
        if options.minWidth > 0, case let minShrink = srcW / Double(options.minWidth), minShrink < wshrink {
            hshrink /= wshrink / minShrink
            wshrink = minShrink
        }
        if options.minHeight > 0, case let minShrink = srcH / Double(options.minHeight), minShrink < hshrink {
            wshrink /= hshrink / minShrink
            hshrink = minShrink
        }
        wshrink = min(wshrink / dprScale, srcW)
        hshrink = min(hshrink / dprScale, srcH)
        return (1 / wshrink, 1 / hshrink, dprScale)
    }

    /// A `c:` side: ≥ 1 pixels, under 1 a fraction (at least one pixel), 0 the whole side;
    /// never more than the image.
    static func cropSide(_ side: Int, _ value: Double) -> Int {
        if value == 0 { return 0 }
        let pixels = value >= 1 ? Int(min(value, Double(Int32.max))) : max(1, round(Double(side) * value))
        return min(pixels, side)
    }

    /// Where an `inner` box sits in `outer` at `gravity` (imgproxy's `calcPosition`): offsets of
    /// 1 or more are pixels (times `dprScale`), smaller ones fractions of `outer`; at an anchored
    /// edge an offset points inwards. Clamped into `outer` unless `clamped` is false (a watermark
    /// may reach past the edges). `sm` is placed by the caller.
    static func position(of inner: ImageSize, in outer: ImageSize, gravity: ProcessingOptions.Gravity, dprScale: Double = 1, clamped: Bool = true) -> (x: Int, y: Int) {
        func offset(_ value: Double, _ side: Int) -> Int {
            abs(value) >= 1 ? roundEven(value * dprScale) : roundEven(value * Double(side))
        }
        let slackX = outer.width - inner.width, slackY = outer.height - inner.height
        var x = (slackX + 1) / 2 + offset(gravity.x, outer.width)
        var y = (slackY + 1) / 2 + offset(gravity.y, outer.height)
        switch gravity.type {
        case .north, .northEast, .northWest: y = offset(gravity.y, outer.height)
        case .south, .southEast, .southWest: y = slackY - offset(gravity.y, outer.height)
        default: break
        }
        switch gravity.type {
        case .west, .northWest, .southWest: x = offset(gravity.x, outer.width)
        case .east, .northEast, .southEast: x = slackX - offset(gravity.x, outer.width)
        default: break
        }
        if gravity.type == .focusPoint {
            x = roundEven(Double(outer.width) * gravity.x) - inner.width / 2
            y = roundEven(Double(outer.height) * gravity.y) - inner.height / 2
        }
        guard clamped else { return (x, y) }
        return (min(max(x, 0), max(slackX, 0)), min(max(y, 0), max(slackY, 0)))
    }

    /// A side in whole pixels, at least 1; sizes past any limit saturate rather than overflow.
    private static func side(_ value: Double) -> Int {
        guard value.isFinite else { return Int(Int32.max) }
        return max(1, Int(min(value.rounded(), Double(Int32.max))))
    }

    /// Whole pixels within ±`Int32.max`: URLs choose these numbers, so none may trap.
    private static func round(_ value: Double) -> Int {
        value.isFinite ? Int(min(max(value.rounded(), -Double(Int32.max)), Double(Int32.max))) : Int(Int32.max)
    }

    static func roundEven(_ value: Double) -> Int {
        value.isFinite ? Int(min(max(value.rounded(.toNearestOrEven), -Double(Int32.max)), Double(Int32.max))) : 0
    }
}
