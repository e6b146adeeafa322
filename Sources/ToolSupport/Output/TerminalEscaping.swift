/// Text from outside (a source name, a path, an error's reason) made safe to print on a terminal:
/// control characters would otherwise forge whole lines (a newline) or drive the terminal (ESC
/// sequences, bidirectional overrides). Escapes are Swift's spelling, so they read back unambiguously:
/// `\n`, `\r`, `\t`, `\\` for a backslash, `\u{1B}` for any other control or direction character.
package enum TerminalEscaping {
    package static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || isControl($0) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Characters a terminal acts on instead of showing.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1 (0x9B is a one-byte CSI)
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // direction marks and overrides
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }
}
