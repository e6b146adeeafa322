import PipelineCore

/// Reads one `name:arg:arg` segment into `ProcessingOptions`. Names and aliases are imgproxy's;
/// an unknown name or a bad argument is `Malformed`, naming the option.
enum ProcessingOptionParser {
    typealias Malformed = ProcessingURL.Malformed

    /// The largest width or height a URL may ask for: WebP's limit, and far beyond any display.
    static let maxSide = 16383
    /// Blur sigmas above this only average the image away.
    static let maxBlur = 100.0

    static func apply(_ segment: String, to options: inout ProcessingOptions, formats: (String) -> ImageFormat?) throws(Malformed) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        let args = Array(parts.dropFirst())
        switch name {
        case "rs", "resize":
            try count(args, name, 1...5)
            try resizingType(args[0], name).map { options.resizingType = $0 }
            try size(Array(args.dropFirst()), name, into: &options)
        case "s", "size":
            try count(args, name, 1...4)
            try size(args, name, into: &options)
        case "w", "width":
            try count(args, name, 1...1)
            options.width = try side(args[0], name)
        case "h", "height":
            try count(args, name, 1...1)
            options.height = try side(args[0], name)
        case "rt", "resizing_type":
            try count(args, name, 1...1)
            guard let type = try resizingType(args[0], name) else { throw Malformed(reason: "\(name): a resizing type is required") }
            options.resizingType = type
        case "g", "gravity":
            options.gravity = try gravity(args, name)
        case "el", "enlarge":
            try count(args, name, 1...1)
            options.enlarge = try bool(args[0], name)
        case "q", "quality":
            try count(args, name, 1...1)
            guard let quality = Int(args[0]), (0...100).contains(quality) else {
                throw Malformed(reason: "\(name): quality must be a whole number from 0 to 100")
            }
            options.quality = quality == 0 ? nil : quality
        case "f", "format", "ext":
            try count(args, name, 1...1)
            guard let format = formats(args[0].lowercased()) else {
                throw Malformed(reason: "\(name): unknown output format '\(ProcessingURL.printable(args[0]))'")
            }
            options.format = format
        case "bl", "blur":
            try count(args, name, 1...1)
            guard let sigma = Double(args[0]), sigma.isFinite, (0...maxBlur).contains(sigma) else {
                throw Malformed(reason: "\(name): blur must be a number from 0 to \(Int(maxBlur))")
            }
            options.blur = sigma
        case "rot", "rotate":
            try count(args, name, 1...1)
            guard let angle = Int(args[0]), angle % 90 == 0 else {
                throw Malformed(reason: "\(name): rotation must be a multiple of 90 degrees")
            }
            options.rotate = ((angle % 360) + 360) % 360
        default:
            throw Malformed(reason: "unknown processing option '\(ProcessingURL.printable(name))'")
        }
    }

    private static func count(_ args: [String], _ name: String, _ range: ClosedRange<Int>) throws(Malformed) {
        guard range.contains(args.count) else {
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw Malformed(reason: "\(name): expected \(expected) argument\(range.upperBound == 1 ? "" : "s"), got \(args.count)")
        }
    }

    /// `width:height:enlarge:extend`, each optional (empty keeps the current value).
    private static func size(_ args: [String], _ name: String, into options: inout ProcessingOptions) throws(Malformed) {
        if args.count > 0, !args[0].isEmpty { options.width = try side(args[0], name) }
        if args.count > 1, !args[1].isEmpty { options.height = try side(args[1], name) }
        if args.count > 2, !args[2].isEmpty { options.enlarge = try bool(args[2], name) }
        // Extending (padding to the box) is not offered; a URL asking for it is refused, not ignored.
        if args.count > 3, !args[3].isEmpty, try bool(args[3], name) {
            throw Malformed(reason: "\(name): extend is not supported")
        }
    }

    private static func side(_ text: String, _ name: String) throws(Malformed) -> Int {
        guard let value = Int(text), (0...maxSide).contains(value) else {
            throw Malformed(reason: "\(name): width and height must be whole numbers from 0 to \(maxSide)")
        }
        return value
    }

    private static func resizingType(_ text: String, _ name: String) throws(Malformed) -> ProcessingOptions.ResizingType? {
        if text.isEmpty { return nil }
        guard let type = ProcessingOptions.ResizingType(rawValue: text) else {
            throw Malformed(reason: "\(name): unknown resizing type '\(ProcessingURL.printable(text))' (fit, fill, force, auto)")
        }
        return type
    }

    /// Go's `strconv.ParseBool`, which imgproxy uses.
    private static func bool(_ text: String, _ name: String) throws(Malformed) -> Bool {
        switch text {
        case "1", "t", "T", "true", "TRUE", "True": return true
        case "0", "f", "F", "false", "FALSE", "False": return false
        default: throw Malformed(reason: "\(name): '\(ProcessingURL.printable(text))' is not a boolean (1 or 0)")
        }
    }

    private static func gravity(_ args: [String], _ name: String) throws(Malformed) -> ProcessingOptions.Gravity {
        guard let type = args.first else { throw Malformed(reason: "\(name): a gravity type is required") }
        if type == "fp" {
            guard args.count == 3, let x = Double(args[1]), let y = Double(args[2]), (0...1).contains(x), (0...1).contains(y) else {
                throw Malformed(reason: "\(name): fp takes x and y from 0 to 1")
            }
            return .focusPoint(x: x, y: y)
        }
        guard let gravity = ProcessingOptions.Gravity.named[type] else {
            throw Malformed(reason: "\(name): unknown gravity '\(ProcessingURL.printable(type))' (no so ea we noea nowe soea sowe ce sm fp)")
        }
        // Offsets move the crop by pixels; only zero offsets are accepted.
        for offset in args.dropFirst() where !offset.isEmpty && Double(offset) != 0 {
            throw Malformed(reason: "\(name): gravity offsets are not supported")
        }
        guard args.count <= 3 else { throw Malformed(reason: "\(name): expected 1 to 3 arguments, got \(args.count)") }
        return gravity
    }
}
