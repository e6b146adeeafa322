import Foundation
import PipelineCore

/// One option of imgproxy's open-source URL language: its names, its arguments, what it does and
/// how it is read. The parser, `--help`-style listings and the docs' table come from this one list.
struct ProcessingOptionDescription: Sendable {
    let name: String
    let aliases: [String]
    /// The arguments as imgproxy's docs write them: `%width:%height`.
    let arguments: String
    let summary: String
    /// The security options: refused with 403 unless the server allows them.
    var isSecurityOption = false
    let apply: @Sendable (OptionArguments, inout ProcessingOptions, inout ProcessingOptionCatalog.Context) throws(ProcessingURL.Malformed) -> Void

    var names: [String] { [name] + aliases }
}

enum ProcessingOptionCatalog {
    typealias Malformed = ProcessingURL.Malformed
    typealias Options = ProcessingOptions

    /// What applying an option may need besides its arguments: the presets, the clock for `exp`,
    /// and whether the security options may override the server's limits.
    struct Context {
        var presets: [String: [String]]
        var now: Int64
        var allowsSecurityOptions = false
        /// The presets being applied, outermost first: one met again is skipped, as imgproxy does.
        var presetChain: [String] = []
    }

    /// Applies one `name:arg:…` segment to `options`.
    static func apply(_ segment: String, to options: inout Options, context: inout Context) throws(Malformed) {
        let parts = ProcessingURL.fields(segment, separator: ":")
        let name = parts[0]
        guard let description = byName[name] else {
            throw Malformed(reason: "unknown processing option '\(ProcessingURL.printable(name))'")
        }
        if description.isSecurityOption && !context.allowsSecurityOptions {
            throw Malformed(status: 403, reason: "\(name): security options are not allowed on this server (--allow-security-options)")
        }
        try description.apply(OptionArguments(name: name, values: Array(parts.dropFirst())), &options, &context)
    }

    /// Every option, by each of its names.
    static let byName: [String: ProcessingOptionDescription] = Dictionary(
        uniqueKeysWithValues: all.flatMap { description in description.names.map { ($0, description) } })

    static func option(
        _ name: String, _ aliases: [String], _ arguments: String, _ summary: String,
        _ apply: @escaping @Sendable (OptionArguments, inout Options, inout Context) throws(Malformed) -> Void
    ) -> ProcessingOptionDescription {
        ProcessingOptionDescription(name: name, aliases: aliases, arguments: arguments, summary: summary, apply: apply)
    }

    /// A one-value option of a kind that needs nothing but its argument.
    static func single(
        _ name: String, _ aliases: [String], _ arguments: String, _ summary: String,
        _ apply: @escaping @Sendable (OptionArguments, String, inout Options) throws(Malformed) -> Void
    ) -> ProcessingOptionDescription {
        option(name, aliases, arguments, summary) { (args, options, _) throws(Malformed) in try apply(args, try args.single(), &options) }
    }

    /// A security option: one value overriding one of the server's limits for this URL.
    static func security(
        _ name: String, _ aliases: [String], _ arguments: String, _ summary: String,
        _ apply: @escaping @Sendable (OptionArguments, String, inout SecurityLimits) throws(Malformed) -> Void
    ) -> ProcessingOptionDescription {
        var description = single(name, aliases, arguments, summary) { (args, value, options) throws(Malformed) in try apply(args, value, &options.limits) }
        description.isSecurityOption = true
        return description
    }

    static let all: [ProcessingOptionDescription] = geometry + effects + saving + handling + securityOptions

    static let geometry: [ProcessingOptionDescription] = [
        option("resize", ["rs"], "%type:%width:%height:%enlarge:%extend:%gravity:%x:%y", "resizing type and size at once") { (args, options, _) throws(Malformed) in
            try args.count(1...8)
            if let type = args.given(0) { options.resizingType = try resizingType(type, args) }
            try size(OptionArguments(name: args.name, values: Array(args.values.dropFirst())), &options)
        },
        option("size", ["s"], "%width:%height:%enlarge:%extend:%gravity:%x:%y", "width, height, enlarge and extend at once") { (args, options, _) throws(Malformed) in
            try args.count(1...7)
            try size(args, &options)
        },
        single("resizing_type", ["rt"], "%type", "fit, fill, fill-down, force or auto (default fit)") { (args, value, options) throws(Malformed) in
            options.resizingType = try resizingType(value, args)
        },
        single("width", ["w"], "%px", "target width; 0 follows the height") { (args, value, options) throws(Malformed) in
            options.width = try args.int(value, "width", atLeast: 0)
        },
        single("height", ["h"], "%px", "target height; 0 follows the width") { (args, value, options) throws(Malformed) in
            options.height = try args.int(value, "height", atLeast: 0)
        },
        single("min-width", ["mw"], "%px", "smallest result width, enlarging if needed") { (args, value, options) throws(Malformed) in
            options.minWidth = try args.int(value, "min-width", atLeast: 0)
        },
        single("min-height", ["mh"], "%px", "smallest result height, enlarging if needed") { (args, value, options) throws(Malformed) in
            options.minHeight = try args.int(value, "min-height", atLeast: 0)
        },
        option("zoom", ["z"], "%both or %x:%y", "multiplies the size after resizing (not offsets or padding)") { (args, options, _) throws(Malformed) in
            try args.count(1...2)
            options.zoomX = try args.number(args[0], "zoom", above: 0)
            options.zoomY = args.count == 2 ? try args.number(args[1], "zoom", above: 0) : options.zoomX
        },
        single("dpr", [], "%factor", "multiplies sizes, offsets and padding; never enlarges past the source unless enlarge") { (args, value, options) throws(Malformed) in
            options.dpr = try args.number(value, "dpr", above: 0)
        },
        single("enlarge", ["el"], "%bool", "allow scaling up") { _, value, options in
            options.enlarge = OptionArguments.bool(value)
        },
        option("extend", ["ex"], "%bool:%gravity:%x:%y", "embed a smaller result in a canvas of the requested size") { (args, options, _) throws(Malformed) in
            options.extend = try args.extend(from: 0, over: options.extend)
        },
        option("extend_aspect_ratio", ["extend_ar", "exar"], "%bool:%gravity:%x:%y", "extend to the requested aspect ratio") { (args, options, _) throws(Malformed) in
            options.extendAspectRatio = try args.extend(from: 0, over: options.extendAspectRatio)
        },
        option("gravity", ["g"], "%type:%x:%y or fp:%x:%y or sm", "where fill and crop cut: an edge, a corner, the centre, a focus point or the most detailed window") {
            (args, options, _) throws(Malformed) in
            options.gravity = try args.gravity(from: 0, over: options.gravity, allowed: Options.GravityType.crop)
        },
        option("crop", ["c"], "%width:%height:%gravity:%x:%y", "cut a window of the source before resizing") { (args, options, _) throws(Malformed) in
            try args.count(1...5)
            var crop = options.crop ?? Options.Crop()
            guard let width = args.given(0) else { throw args.fail("a crop width is required") }
            crop.width = try args.number(width, "crop width", 0...Double.greatestFiniteMagnitude)
            if let height = args.given(1) { crop.height = try args.number(height, "crop height", 0...Double.greatestFiniteMagnitude) }
            if args.count > 2 {
                crop.gravity = try args.gravity(from: 2, over: crop.gravity ?? Options.Gravity(), allowed: Options.GravityType.crop)
            }
            options.crop = crop
        },
        option("trim", ["t"], "%threshold:%color:%equal_hor:%equal_ver", "cut borders of one colour") { (args, options, _) throws(Malformed) in
            try args.count(1...4)
            guard let threshold = args.given(0) else {
                options.trim = nil
                return
            }
            var trim = Options.Trim(threshold: try args.number(threshold, "threshold"))
            if let color = args.given(1) { trim.color = try args.hexColor(color) }
            if let value = args.given(2) { trim.equalHorizontal = OptionArguments.bool(value) }
            if let value = args.given(3) { trim.equalVertical = OptionArguments.bool(value) }
            options.trim = trim
        },
        option("padding", ["pd"], "%top:%right:%bottom:%left", "transparent (or bg) margins, CSS order and shorthand") { (args, options, _) throws(Malformed) in
            try args.count(1...4)
            var sides: [Int?] = []
            for index in 0..<4 {
                if let text = args.given(index) { sides.append(try args.int(text, "padding", atLeast: 0)) } else { sides.append(nil) }
            }
            if let top = sides[0] {
                options.padding.top = top
                options.padding.right = top
                options.padding.bottom = top
                options.padding.left = top
            }
            if let right = sides[1] {
                options.padding.right = right
                options.padding.left = right
            }
            if let bottom = sides[2] { options.padding.bottom = bottom }
            if let left = sides[3] { options.padding.left = left }
        },
        single("rotate", ["rot"], "%angle", "clockwise, a multiple of 90") { (args, value, options) throws(Malformed) in
            let angle = try args.int(value, "the angle")
            guard angle % 90 == 0 else { throw args.fail("rotation must be a multiple of 90 degrees") }
            options.rotate = ((angle % 360) + 360) % 360
        },
        option("flip", ["fl"], "%horizontal:%vertical", "mirror left-right and/or top-bottom") { (args, options, _) throws(Malformed) in
            try args.count(1...2)
            if let value = args.given(0) { options.flipHorizontal = OptionArguments.bool(value) }
            if let value = args.given(1) { options.flipVertical = OptionArguments.bool(value) }
        },
        single("auto_rotate", ["ar"], "%bool", "turn the image upright by its EXIF orientation (default on)") { _, value, options in
            options.autoRotate = OptionArguments.bool(value)
        },
    ]

    static let effects: [ProcessingOptionDescription] = [
        option("background", ["bg"], "%R:%G:%B or %hex", "what transparency is flattened onto; empty turns it off") { (args, options, _) throws(Malformed) in
            switch args.count {
            case 1:
                options.background = args[0].isEmpty ? nil : try args.hexColor(args[0])
            case 3:
                var channels: [UInt8] = []
                for value in args.values {
                    guard let channel = UInt8(value) else { throw args.fail("each of R, G and B must be a whole number from 0 to 255") }
                    channels.append(channel)
                }
                options.background = ImageColor(red: channels[0], green: channels[1], blue: channels[2])
            default:
                throw args.fail("expected a hex colour or R:G:B, got \(args.count) arguments")
            }
        },
        single("blur", ["bl"], "%sigma", "Gaussian blur") { (args, value, options) throws(Malformed) in
            options.blur = try args.number(value, "sigma", 0...Double.greatestFiniteMagnitude)
        },
        single("sharpen", ["sh"], "%sigma", "unsharp mask") { (args, value, options) throws(Malformed) in
            options.sharpen = try args.number(value, "sigma", 0...Double.greatestFiniteMagnitude)
        },
        single("pixelate", ["pix"], "%size", "blocks of this many pixels") { (args, value, options) throws(Malformed) in
            options.pixelate = try args.int(value, "size", atLeast: 0)
        },
        option("watermark", ["wm"], "%opacity:%position:%x:%y:%scale", "draw the server's --watermark image over the result") { (args, options, _) throws(Malformed) in
            try args.count(1...7)
            guard let opacity = args.given(0) else { throw args.fail("an opacity is required") }
            options.watermark.opacity = try args.number(opacity, "opacity", 0...1)
            if args.given(1) != nil {
                let position = OptionArguments(name: args.name, values: Array(args.values.prefix(4)))
                options.watermark.position = try position.gravity(from: 1, over: options.watermark.position, allowed: Options.GravityType.watermark)
            }
            // imgproxy 4 refuses a scale of 0, which its docs call "keep the size"; the docs win.
            if let scale = args.given(4) { options.watermark.scale = try args.number(scale, "scale", 0...Double.greatestFiniteMagnitude) }
        },
        single("strip_metadata", ["sm"], "%bool", "drop EXIF and XMP (default on)") { _, value, options in
            options.stripMetadata = OptionArguments.bool(value)
        },
        single("keep_copyright", ["kcr"], "%bool", "keep copyright fields while stripping (default on)") { _, value, options in
            options.keepCopyright = OptionArguments.bool(value)
        },
        single("strip_color_profile", ["scp"], "%bool", "convert to sRGB and drop the profile (default on)") { _, value, options in
            options.stripColorProfile = OptionArguments.bool(value)
        },
        single("preserve_hdr", ["ph"], "%bool", "keep high bit depth") { _, value, options in
            options.preserveHDR = OptionArguments.bool(value)
        },
        single("enforce_thumbnail", ["eth"], "%bool", "use the thumbnail embedded in HEIC/AVIF") { _, value, options in
            options.enforceThumbnail = OptionArguments.bool(value)
        },
    ]

    static let saving: [ProcessingOptionDescription] = [
        single("quality", ["q"], "%quality", "1–100; 0 for the default") { (args, value, options) throws(Malformed) in
            guard let quality = Int(value), (0...100).contains(quality) else { throw args.fail("quality must be a whole number from 0 to 100") }
            options.quality = quality == 0 ? nil : quality
        },
        option("format_quality", ["fq"], "%format:%quality:…", "quality per output format") { (args, options, _) throws(Malformed) in
            guard args.count % 2 == 0 else { throw args.fail("formats and qualities come in pairs") }
            for pair in stride(from: 0, to: args.count, by: 2) {
                let format = try args.formatName(args[pair])
                guard let quality = Int(args[pair + 1]), (0...100).contains(quality) else { throw args.fail("quality must be a whole number from 0 to 100") }
                options.formatQuality[format] = quality == 0 ? nil : quality
            }
        },
        single("max_bytes", ["mb"], "%bytes", "lower the quality of lossy formats until the answer fits") { (args, value, options) throws(Malformed) in
            options.maxBytes = try args.int(value, "bytes", atLeast: 0)
        },
        single("format", ["f", "ext"], "%extension", "the output format; the URL's extension wins") { (args, value, options) throws(Malformed) in
            options.format = try args.formatName(value)
        },
    ]

    static let handling: [ProcessingOptionDescription] = [
        option("skip_processing", ["skp"], "%extension:…", "answer sources of these formats as they are") { (args, options, _) throws(Malformed) in
            for value in args.values { options.skipProcessing.append(try args.formatName(value)) }
        },
        single("raw", [], "%bool", "stream the source as the origin sent it") { _, value, options in
            options.raw = OptionArguments.bool(value)
        },
        single("cachebuster", ["cb"], "%string", "changes the URL and cache keys, nothing else") { _, value, options in
            options.cacheBuster = value
        },
        singleWithContext("expires", ["exp"], "%unix_time", "refuse the URL after this time (404); shortens max-age") { (args, value, options, context) throws(Malformed) in
            guard let time = Int64(value) else { throw args.fail("expected a unix timestamp, got '\(ProcessingURL.printable(value))'") }
            if time > 0 && time < context.now { throw Malformed(reason: "the URL has expired") }
            options.expires = time
        },
        option("filename", ["fn"], "%name:%encoded", "the Content-Disposition filename, base64url when encoded") { (args, options, _) throws(Malformed) in
            try args.count(1...2)
            if let encoded = args.given(1), OptionArguments.bool(encoded) {
                guard let name = Data(base64URLEncoded: args[0]) else { throw args.fail("the filename is not valid URL-safe base64") }
                options.filename = String(decoding: name, as: UTF8.self)
            } else {
                options.filename = args[0]
            }
        },
        single("return_attachment", ["att"], "%bool", "Content-Disposition: attachment") { _, value, options in
            options.returnAttachment = OptionArguments.bool(value)
        },
        option("preset", ["pr"], "%name:…", "apply the server's presets in order") { (args, options, context) throws(Malformed) in
            for name in args.values { try applyPreset(name, to: &options, context: &context) }
        },
    ]

    /// Each overrides one server limit for the URL, with --allow-security-options (403 without).
    static let securityOptions: [ProcessingOptionDescription] = [
        security("max_src_resolution", ["msr"], "%megapixels", "most source pixels, frames summed (422 past it); overrides --max-src-resolution") {
            (args, value, limits) throws(Malformed) in
            limits.maxSourcePixels = try megapixels(args, value)
        },
        security("max_src_file_size", ["msfs"], "%bytes", "largest source (422 past it); overrides --max-source-bytes, 0 keeps it") { (args, value, limits) throws(Malformed) in
            // At most what --max-source-bytes itself may be.
            limits.maxSourceBytes = min(try args.int(value, "bytes"), 1 << 40)
        },
        security("max_animation_frames", ["maf"], "%frames", "animation frames processed (422 past it); overrides --max-frames") { (args, value, limits) throws(Malformed) in
            let frames = try args.int(value, "frames", atLeast: 1)
            limits.maxFrames = min(frames, ImageDecodeOptions.defaultMaxFrames)
        },
        security("max_animation_frame_resolution", ["mafr"], "%megapixels", "most pixels of each animation frame, 0 to sum frames; overrides --max-animation-frame-resolution") {
            (args, value, limits) throws(Malformed) in
            limits.maxFramePixels = try megapixels(args, value)
        },
        security("max_result_dimension", ["mrd"], "%px", "scale the result down to fit this side, 0 for none; overrides --max-result-dimension") {
            (args, value, limits) throws(Malformed) in
            limits.maxResultDimension = try args.int(value, "size")
        },
    ]

    /// imgproxy's megapixels: a number of 0 or more, as whole pixels (beyond any image saturates).
    private static func megapixels(_ args: OptionArguments, _ value: String) throws(Malformed) -> Int {
        let megapixels = try args.number(value, "megapixels", 0...Double.greatestFiniteMagnitude)
        return Int(min(megapixels * 1_000_000, Double(1 << 40)))
    }

    /// `single` for options that also read the context (`exp`).
    static func singleWithContext(
        _ name: String, _ aliases: [String], _ arguments: String, _ summary: String,
        _ apply: @escaping @Sendable (OptionArguments, String, inout Options, Context) throws(Malformed) -> Void
    ) -> ProcessingOptionDescription {
        option(name, aliases, arguments, summary) { (args, options, context) throws(Malformed) in try apply(args, try args.single(), &options, context) }
    }

    /// A preset's options at this place in the URL; one already being applied is skipped.
    static func applyPreset(_ name: String, to options: inout Options, context: inout Context) throws(Malformed) {
        guard let segments = context.presets[name] else { throw Malformed(reason: "unknown preset '\(ProcessingURL.printable(name))'") }
        guard !context.presetChain.contains(name) else { return }
        context.presetChain.append(name)
        defer { context.presetChain.removeLast() }
        options.usedPresets.append(name)
        for segment in segments { try apply(segment, to: &options, context: &context) }
    }

    private static func resizingType(_ text: String, _ args: OptionArguments) throws(Malformed) -> Options.ResizingType {
        guard let type = Options.ResizingType(rawValue: text) else {
            throw args.fail("unknown resizing type '\(ProcessingURL.printable(text))' (fit fill fill-down force auto)")
        }
        return type
    }

    /// `width:height:enlarge:extend:gravity:x:y`, each applied only when given; an empty extend
    /// flag leaves the rest unread, as imgproxy does.
    private static func size(_ args: OptionArguments, _ options: inout Options) throws(Malformed) {
        if let width = args.given(0) { options.width = try args.int(width, "width", atLeast: 0) }
        if let height = args.given(1) { options.height = try args.int(height, "height", atLeast: 0) }
        if let enlarge = args.given(2) { options.enlarge = OptionArguments.bool(enlarge) }
        if args.given(3) != nil { options.extend = try args.extend(from: 3, over: options.extend) }
    }
}
