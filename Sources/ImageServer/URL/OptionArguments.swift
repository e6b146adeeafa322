import PipelineCore

/// The argument kinds of imgproxy's options, read as its parser reads them (`options/parser/parse.go`):
/// every failure is a `Malformed` naming the option, answered 404 as imgproxy answers it.
struct OptionArguments {
    typealias Malformed = ProcessingURL.Malformed

    /// The option's name as the URL wrote it, for reasons.
    let name: String
    let values: [String]

    var count: Int { values.count }
    subscript(index: Int) -> String { index < values.count ? values[index] : "" }
    /// The argument at `index` when given and not empty.
    func given(_ index: Int) -> String? { index < values.count && !values[index].isEmpty ? values[index] : nil }

    func fail(_ reason: String) -> Malformed { Malformed(reason: "\(name): \(reason)") }

    func count(_ range: ClosedRange<Int>) throws(Malformed) {
        guard range.contains(values.count) else {
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw fail("expected \(expected) argument\(range.upperBound == 1 ? "" : "s"), got \(values.count)")
        }
    }

    /// The one argument of a one-value option.
    func single() throws(Malformed) -> String {
        try count(1...1)
        return values[0]
    }

    /// Go's `strconv.ParseBool`; anything else, the empty string included, is false and no error,
    /// as imgproxy has it (it only logs a warning).
    static func bool(_ text: String) -> Bool {
        ["1", "t", "T", "true", "TRUE", "True"].contains(text)
    }

    /// A decimal integer with an optional sign, as Go's `strconv.Atoi`.
    func int(_ text: String, _ what: String, atLeast minimum: Int = .min) throws(Malformed) -> Int {
        guard let value = Int(text), value >= minimum else {
            throw fail("\(what) must be a whole number\(minimum == 0 ? " of 0 or more" : minimum == 1 ? " over 0" : ""), got '\(ProcessingURL.printable(text))'")
        }
        return value
    }

    /// A finite number (`1e2`, `.5`, `+1` as Go's `ParseFloat`; NaN and infinities refused, which
    /// imgproxy lets through by accident) within `range`.
    func number(_ text: String, _ what: String, _ range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude, above minimum: Double? = nil) throws(Malformed) -> Double {
        guard let value = Double(text), value.isFinite, range.contains(value), minimum.map({ value > $0 }) ?? true else {
            let bounds =
                minimum.map { " over \(Self.short($0))" }
                ?? (range.lowerBound > -1e300 ? " from \(Self.short(range.lowerBound))\(range.upperBound < 1e300 ? " to \(Self.short(range.upperBound))" : " up")" : "")
            throw fail("\(what) must be a number\(bounds), got '\(ProcessingURL.printable(text))'")
        }
        return value
    }

    /// 3 or 6 hex digits, no `#`; three expand as CSS does (`f` is 255).
    func hexColor(_ text: String) throws(Malformed) -> ImageColor {
        let digits = Array(text.utf8)
        guard digits.count == 3 || digits.count == 6, digits.allSatisfy({ UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 || UInt8(ascii: "a")...UInt8(ascii: "f") ~= $0 || UInt8(ascii: "A")...UInt8(ascii: "F") ~= $0 }),
            let value = UInt32(text, radix: 16)
        else { throw fail("'\(ProcessingURL.printable(text))' is not a hex colour (3 or 6 hex digits)") }
        if digits.count == 3 {
            return ImageColor(red: UInt8((value >> 8) & 0xF) * 17, green: UInt8((value >> 4) & 0xF) * 17, blue: UInt8(value & 0xF) * 17)
        }
        return ImageColor(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// imgproxy's format names, case-sensitive; `jpg` is `jpeg`.
    static let formatNames: Set<String> = ["jpeg", "jpg", "png", "webp", "avif", "gif", "ico", "svg", "heic", "bmp", "tiff", "jxl"]

    func formatName(_ text: String) throws(Malformed) -> String {
        guard Self.formatNames.contains(text) else {
            throw fail("unknown format '\(ProcessingURL.printable(text))' (\(Self.formatNames.sorted().joined(separator: " ")))")
        }
        return text == "jpg" ? "jpeg" : text
    }

    /// `type:x:y` from `start` on, over `current` (an empty offset keeps the current one); `allowed`
    /// is the option's subset of types. `sm` takes no offsets and clears them; `fp` takes exactly
    /// two, each from 0 to 1.
    func gravity(from start: Int, over current: ProcessingOptions.Gravity, allowed: [ProcessingOptions.GravityType]) throws(Malformed)
        -> ProcessingOptions.Gravity
    {
        let text = self[start]
        guard let type = ProcessingOptions.GravityType(rawValue: text), allowed.contains(type) else {
            throw fail("unknown gravity '\(ProcessingURL.printable(text))' (\(allowed.map(\.rawValue).joined(separator: " ")))")
        }
        let offsets = values.count - start - 1
        var result = current
        result.type = type
        switch type {
        case .smart:
            guard offsets == 0 else { throw fail("sm takes no offsets") }
            result.x = 0
            result.y = 0
        case .focusPoint:
            guard offsets == 2 else { throw fail("fp takes x and y, each from 0 to 1") }
            if let x = given(start + 1) { result.x = try number(x, "fp x", 0...1) }
            if let y = given(start + 2) { result.y = try number(y, "fp y", 0...1) }
        default:
            guard offsets <= 2 else { throw fail("a gravity takes at most x and y offsets") }
            if let x = given(start + 1) { result.x = try number(x, "the x offset") }
            if let y = given(start + 2) { result.y = try number(y, "the y offset") }
        }
        return result
    }

    /// `enabled:type:x:y` of `extend` and `extend_aspect_ratio`, from `start` on.
    func extend(from start: Int, over current: ProcessingOptions.Extend) throws(Malformed) -> ProcessingOptions.Extend {
        guard values.count - start <= 4 else { throw fail("extend takes at most 4 arguments") }
        var result = current
        result.enabled = Self.bool(self[start])
        if values.count > start + 1 {
            result.gravity = try gravity(from: start + 1, over: current.gravity, allowed: ProcessingOptions.GravityType.extend)
        }
        return result
    }

    private static func short(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
