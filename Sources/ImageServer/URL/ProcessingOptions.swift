import PipelineCore

/// What an image URL asks for, in imgproxy's terms: how to resize, where to crop, what to encode.
/// Options left out keep imgproxy's defaults (fit, no resize, centre gravity, no enlarging).
struct ProcessingOptions: Hashable, Sendable {
    enum ResizingType: String, Hashable, Sendable, CaseIterable {
        /// Fit inside width × height, aspect kept.
        case fit
        /// Cover width × height, aspect kept, the overflow cropped by gravity.
        case fill
        /// Exactly width × height, aspect ignored.
        case force
        /// `fill` when the source and the box are both portrait or both landscape, else `fit`.
        case auto
    }

    /// Where a `fill` crop is anchored: an edge or corner, the centre, the most detailed window
    /// (`smart`, by entropy), or a focus point given as fractions of the width and height.
    enum Gravity: Hashable, Sendable {
        case north, south, east, west, northEast, northWest, southEast, southWest, center, smart
        case focusPoint(x: Double, y: Double)

        static let named: [String: Gravity] = [
            "no": .north, "so": .south, "ea": .east, "we": .west, "noea": .northEast, "nowe": .northWest,
            "soea": .southEast, "sowe": .southWest, "ce": .center, "sm": .smart,
        ]

        var name: String {
            switch self {
            case .focusPoint(let x, let y): "fp:\(x):\(y)"
            default: Self.named.first { $0.value == self }?.key ?? "ce"
            }
        }
    }

    var resizingType: ResizingType = .fit
    /// 0: computed from the other side (both 0: no resize).
    var width = 0
    var height = 0
    var enlarge = false
    var gravity: Gravity = .center
    /// 1–100; nil for the server's default.
    var quality: Int?
    /// The output format; nil to negotiate from `Accept` and the source.
    var format: ImageFormat?
    /// Gaussian blur's sigma in pixels; 0 for none.
    var blur: Double = 0
    /// Clockwise quarter turns in degrees: 0, 90, 180 or 270.
    var rotate = 0

    /// Every option in one canonical spelling, for cache keys and ETags: two URLs asking for the
    /// same output (`w:100/h:50` and `s:100:50`) give the same text. The format is not in it.
    var canonical: String {
        var parts = ["rs:\(resizingType.rawValue):\(width):\(height):\(enlarge ? 1 : 0)", "g:\(gravity.name)"]
        if let quality { parts.append("q:\(quality)") }
        if blur > 0 { parts.append("bl:\(blur)") }
        if rotate != 0 { parts.append("rot:\(rotate)") }
        return parts.joined(separator: "/")
    }

    /// True when the URL changes the pixels: otherwise only a format change or a re-encode.
    var changesPixels: Bool { width > 0 || height > 0 || blur > 0 || rotate != 0 }
}
