import PipelineCore

/// What an image URL asks for, in imgproxy's terms and with imgproxy's defaults: every option of
/// its open-source edition, typed. `ProcessingOptionCatalog` fills it.
struct ProcessingOptions: Hashable, Sendable {
    enum ResizingType: String, Hashable, Sendable, CaseIterable {
        /// Fit inside width × height, aspect kept.
        case fit
        /// Cover width × height, aspect kept, the overflow cropped at the gravity.
        case fill
        /// As `fill`, but a box the image cannot reach without enlarging keeps its aspect ratio.
        case fillDown = "fill-down"
        /// Exactly width × height, aspect ignored.
        case force
        /// `fill` when the source and the box have the same orientation, else `fit`.
        case auto
    }

    /// imgproxy's gravity types by their URL names. Which of them an option allows differs:
    /// `crop`, `extend` and `watermark` each take a subset.
    enum GravityType: String, Hashable, Sendable, CaseIterable {
        case center = "ce"
        case north = "no"
        case south = "so"
        case east = "ea"
        case west = "we"
        case northEast = "noea"
        case northWest = "nowe"
        case southEast = "soea"
        case southWest = "sowe"
        /// The most detailed window (crops only).
        case smart = "sm"
        /// A focus point given as fractions of the width and height.
        case focusPoint = "fp"
        /// Tiled over the whole image (watermarks only).
        case replicate = "re"

        static let edges: [GravityType] = [.center, .north, .south, .east, .west, .northEast, .northWest, .southEast, .southWest]
        static let crop = edges + [.smart, .focusPoint]
        static let extend = edges + [.focusPoint]
        static let watermark = edges + [.replicate]
    }

    /// A gravity type with its offsets: pixels when at least 1 in magnitude, else a fraction of
    /// the outer size; for `fp` the point itself.
    struct Gravity: Hashable, Sendable {
        var type: GravityType = .center
        var x = 0.0
        var y = 0.0

        var canonical: String {
            x == 0 && y == 0 ? type.rawValue : "\(type.rawValue):\(x):\(y)"
        }
    }

    struct Extend: Hashable, Sendable {
        var enabled = false
        var gravity = Gravity()
    }

    /// `c:`: a window of the source cut before resizing. A side ≥ 1 is pixels, under 1 a fraction,
    /// 0 the whole side; without a gravity of its own it uses `gravity`.
    struct Crop: Hashable, Sendable {
        var width = 0.0
        var height = 0.0
        var gravity: Gravity?
    }

    struct Trim: Hashable, Sendable {
        var threshold: Double
        /// nil: the top-left pixel's colour.
        var color: ImageColor?
        var equalHorizontal = false
        var equalVertical = false
    }

    struct Padding: Hashable, Sendable {
        var top = 0, right = 0, bottom = 0, left = 0
        var isZero: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
    }

    struct Watermark: Hashable, Sendable {
        var opacity = 0.0
        var position = Gravity()
        var scale = 0.0
    }

    // Geometry
    var resizingType: ResizingType = .fit
    /// 0: computed from the other side (both 0: no resize).
    var width = 0
    var height = 0
    var minWidth = 0
    var minHeight = 0
    var zoomX = 1.0
    var zoomY = 1.0
    var dpr = 1.0
    var enlarge = false
    var extend = Extend()
    var extendAspectRatio = Extend()
    var gravity = Gravity()
    var crop: Crop?
    var trim: Trim?
    var padding = Padding()
    /// Clockwise quarter turns in degrees: 0, 90, 180 or 270.
    var rotate = 0
    var flipHorizontal = false
    var flipVertical = false
    var autoRotate = true

    // Colour and effects
    /// What alpha is flattened onto; nil keeps alpha where the format has it (white otherwise).
    var background: ImageColor?
    /// Gaussian blur's sigma in pixels; 0 for none.
    var blur = 0.0
    var sharpen = 0.0
    /// The side of a pixelation block; 1 or less does nothing.
    var pixelate = 0
    var watermark = Watermark()

    // Metadata
    var stripMetadata = true
    var keepCopyright = true
    var stripColorProfile = true
    var preserveHDR = false
    var enforceThumbnail = false

    // Saving
    /// 1–100; nil for `formatQuality` or the server's default.
    var quality: Int?
    /// Per output format (imgproxy's names, `jpg` as `jpeg`), 1–100.
    var formatQuality: [String: Int] = [:]
    /// Largest answer in bytes for lossy formats; 0 for no limit.
    var maxBytes = 0
    /// imgproxy's name of the output format (`jpeg`, `png`…); nil to negotiate.
    var format: String?

    // Request handling
    /// Source formats answered with the source's own bytes when the format is left as it is.
    var skipProcessing: [String] = []
    var raw = false
    var cacheBuster = ""
    /// Unix time after which the URL is refused; 0 for never.
    var expires: Int64 = 0
    var filename = ""
    var returnAttachment = false
    var usedPresets: [String] = []

    // Security
    /// The server's limits, or the URL's security options' where the server allows them.
    var limits = SecurityLimits()

    /// Every option that shapes the pixels or the encoding, in one canonical spelling, for cache
    /// keys and ETags: two URLs asking for the same output (`w:100/h:50` and `s:100:50`) give the
    /// same text. The format is not in it; `cb` is, to bust caches as imgproxy's users expect.
    var canonical: String {
        var parts = ["rs:\(resizingType.rawValue):\(width):\(height):\(enlarge ? 1 : 0)", "g:\(gravity.canonical)"]
        func add(_ condition: Bool, _ part: @autoclosure () -> String) { if condition { parts.append(part()) } }
        add(minWidth != 0 || minHeight != 0, "min:\(minWidth):\(minHeight)")
        add(zoomX != 1 || zoomY != 1, "z:\(zoomX):\(zoomY)")
        add(dpr != 1, "dpr:\(dpr)")
        add(extend.enabled, "ex:1:\(extend.gravity.canonical)")
        add(extendAspectRatio.enabled, "exar:1:\(extendAspectRatio.gravity.canonical)")
        if let crop { parts.append("c:\(crop.width):\(crop.height):\(crop.gravity?.canonical ?? "")") }
        add(!padding.isZero, "pd:\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)")
        add(flipHorizontal || flipVertical, "fl:\(flipHorizontal ? 1 : 0):\(flipVertical ? 1 : 0)")
        if let background { parts.append("bg:\(background.red):\(background.green):\(background.blue)") }
        if let quality { parts.append("q:\(quality)") }
        add(!formatQuality.isEmpty, "fq:" + formatQuality.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ":"))
        add(maxBytes > 0, "mb:\(maxBytes)")
        if let trim {
            let color = trim.color.map { "\($0.red).\($0.green).\($0.blue)" } ?? ""
            parts.append("t:\(trim.threshold):\(color):\(trim.equalHorizontal ? 1 : 0):\(trim.equalVertical ? 1 : 0)")
        }
        add(blur > 0, "bl:\(blur)")
        add(sharpen > 0, "sh:\(sharpen)")
        add(pixelate > 1, "pix:\(pixelate)")
        add(rotate != 0, "rot:\(rotate)")
        add(watermark.opacity > 0, "wm:\(watermark.opacity):\(watermark.position.canonical):\(watermark.scale)")
        add(!autoRotate, "ar:0")
        add(!stripMetadata, "sm:0")
        add(stripMetadata && !keepCopyright, "kcr:0")
        add(!stripColorProfile, "scp:0")
        add(enforceThumbnail, "eth:1")
        add(!skipProcessing.isEmpty, "skp:" + skipProcessing.joined(separator: ":"))
        add(!cacheBuster.isEmpty, "cb:\(cacheBuster)")
        if let limits = limits.canonical { parts.append(limits) }
        return parts.joined(separator: "/")
    }

    /// True when the URL changes the pixels: otherwise only a format change or a re-encode.
    var changesPixels: Bool {
        width > 0 || height > 0 || minWidth > 0 || minHeight > 0 || zoomX != 1 || zoomY != 1 || blur > 0 || sharpen > 0
            || pixelate > 1 || rotate != 0 || flipHorizontal || flipVertical || crop != nil || !padding.isZero || background != nil
            || extend.enabled || extendAspectRatio.enabled || trim != nil || !autoRotate || watermark.opacity > 0 || limits.maxResultDimension > 0
    }
}
