import Foundation

/// How an SVG document starts.
enum SVGSniffing {
    static let starts = ["<svg", "<?xml", "<!--", "<!doctype svg"].map { Array($0.utf8) }

    /// Whether `data` starts, after an optional UTF-8 byte-order mark and white space, with one of
    /// `starts` (ASCII letters compared without case).
    static func startsLikeSVG(_ data: Data) -> Bool {
        var bytes = data.prefix(256)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return starts.contains { start in
            bytes.count >= start.count && zip(bytes, start).allSatisfy { lowercased($0) == $1 }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
