import Foundation

/// Counts the start tags of an XML document in its bytes, without parsing: every `<` followed by
/// a letter, `_` or `:` (so not `</`, `<!` or `<?`). Tags inside comments, CDATA or entity values
/// count too: an overestimate, which is the safe side for a limit.
enum SVGElementCount {
    /// The count, or `limit + 1` as soon as it passes `limit`.
    static func count(in data: Data, stoppingAfter limit: Int) -> Int {
        data.withUnsafeBytes { bytes -> Int in
            var count = 0
            var index = 0
            let end = bytes.count - 1
            while index < end {
                if bytes[index] == UInt8(ascii: "<") && startsName(bytes[index + 1]) {
                    count += 1
                    if count > limit { return count }
                }
                index += 1
            }
            return count
        }
    }

    private static func startsName(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
            || byte >= 0x80
    }
}
