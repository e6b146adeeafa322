import PipelineCore

/// The geometry of one request, computed from the upright source size alone: the size to resample
/// to, and the window of it to keep (for `fill`). imgproxy's rules: a 0 side follows the other by
/// the aspect ratio; without `enlarge` nothing is scaled up; `fill` never crops more than it has.
struct ResizePlan: Hashable, Sendable {
    var scaled: ImageSize
    /// The part of `scaled` kept; nil keeps all of it.
    var cropSize: ImageSize?

    var output: ImageSize { cropSize ?? scaled }

    init(source: ImageSize, options: ProcessingOptions) {
        let (w, h) = (options.width, options.height)
        let (sw, sh) = (Double(source.width), Double(source.height))
        var type = options.resizingType
        if type == .auto {
            type = w > 0 && h > 0 && (source.width >= source.height) == (w >= h) ? .fill : .fit
        }
        var scaleX = 1.0, scaleY = 1.0
        if w > 0 || h > 0 {
            let fitX = Double(w) / sw, fitY = Double(h) / sh
            switch type {
            case .force:
                scaleX = w > 0 ? fitX : fitY
                scaleY = h > 0 ? fitY : fitX
            case .fill where w > 0 && h > 0:
                scaleX = max(fitX, fitY)
                scaleY = scaleX
            default:
                scaleX = w == 0 ? fitY : h == 0 ? fitX : min(fitX, fitY)
                scaleY = scaleX
            }
            if !options.enlarge {
                scaleX = min(scaleX, 1)
                scaleY = min(scaleY, 1)
            }
        }
        scaled = ImageSize(width: Self.side(sw * scaleX), height: Self.side(sh * scaleY))
        cropSize = nil
        if type == .fill, w > 0, h > 0 {
            let crop = ImageSize(width: min(w, scaled.width), height: min(h, scaled.height))
            if crop != scaled { cropSize = crop }
        }
    }

    /// A side in whole pixels, at least 1; sizes past any limit saturate rather than overflow.
    private static func side(_ value: Double) -> Int {
        guard value.isFinite else { return Int(Int32.max) }
        return max(1, Int(min(value.rounded(), Double(Int32.max))))
    }

    /// Where a `crop`-sized window sits in `scaled` for a gravity other than smart.
    static func origin(of crop: ImageSize, in scaled: ImageSize, gravity: ProcessingOptions.Gravity) -> (x: Int, y: Int) {
        let slackX = scaled.width - crop.width, slackY = scaled.height - crop.height
        switch gravity {
        case .north: return (slackX / 2, 0)
        case .south: return (slackX / 2, slackY)
        case .east: return (slackX, slackY / 2)
        case .west: return (0, slackY / 2)
        case .northEast: return (slackX, 0)
        case .northWest: return (0, 0)
        case .southEast: return (slackX, slackY)
        case .southWest: return (0, slackY)
        case .center, .smart: return (slackX / 2, slackY / 2)
        case .focusPoint(let fx, let fy):
            let x = Int((fx * Double(scaled.width) - Double(crop.width) / 2).rounded())
            let y = Int((fy * Double(scaled.height) - Double(crop.height) / 2).rounded())
            return (min(max(x, 0), slackX), min(max(y, 0), slackY))
        }
    }
}
