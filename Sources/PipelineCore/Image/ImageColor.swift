/// An 8-bit straight-alpha colour: encode backgrounds, tints, borders.
public struct ImageColor: Hashable, Sendable, Codable, CustomStringConvertible {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8
    package var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = ImageColor(red: 255, green: 255, blue: 255)
    @usableFromInline package static let clear = ImageColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// SDWebImage's spelling in transformer keys: `#aarrggbb`, lowercase, alpha first.
    package var keyDescription: String {
        "#"
            + [alpha, red, green, blue].map { byte in
                let text = String(byte, radix: 16)
                return text.count == 1 ? "0" + text : text
            }.joined()
    }

    public var description: String { keyDescription }

    /// ITU-R BT.601 luma in integer arithmetic; the weights sum to 256 so white stays 255.
    package var luma: UInt8 { Self.luma(red: red, green: green, blue: blue) }

    @inline(__always)
    static func luma(red: UInt8, green: UInt8, blue: UInt8) -> UInt8 {
        UInt8((77 &* UInt32(red) &+ 150 &* UInt32(green) &+ 29 &* UInt32(blue) &+ 128) >> 8)
    }
}
