import PipelineCore

extension ImageColor {
    /// Opaque black.
    public static let black = ImageColor(red: 0, green: 0, blue: 0)

    /// Parses `#RRGGBB` or `#RRGGBBAA` (the command line's `tint:` spelling); the `#` is optional.
    package init?(hex: some StringProtocol) {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 8, let value = UInt32(digits, radix: 16) else { return nil }
        if digits.count == 6 {
            self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        } else {
            self.init(
                red: UInt8(value >> 24), green: UInt8(value >> 16 & 0xFF),
                blue: UInt8(value >> 8 & 0xFF), alpha: UInt8(value & 0xFF))
        }
    }
}
