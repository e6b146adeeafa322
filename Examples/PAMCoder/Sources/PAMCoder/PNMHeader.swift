import Foundation
import PipelineCore

/// A parsed P5, P6 or P7 header: what the pixels after it must look like.
struct PNMHeader: Equatable {
    var width: Int
    var height: Int
    /// Samples per pixel: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    var depth: Int
    /// The largest sample value; samples are scaled from 0…maxValue to 0…255.
    var maxValue: Int
    /// Where the pixel data starts.
    var dataOffset: Int

    var pixelFormat: PixelFormat {
        switch depth {
        case 1: .gray8
        case 2: .grayAlpha8
        case 3: .rgb8
        default: .rgba8
        }
    }

    /// Longest number accepted: 9 digits cannot overflow `Int`, and no real image needs more.
    static let maxDigits = 9
    /// PAM header lines are short; a longer one is garbage, not a header worth scanning on.
    static let maxPAMHeaderBytes = 4096

    static func parse(_ bytes: [UInt8]) throws -> PNMHeader {
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "P") else { throw bad("no P5/P6/P7 magic") }
        switch bytes[1] {
        case UInt8(ascii: "5"): return try parseClassic(bytes, depth: 1)
        case UInt8(ascii: "6"): return try parseClassic(bytes, depth: 3)
        case UInt8(ascii: "7"): return try parsePAM(bytes)
        default: throw bad("P\(Character(UnicodeScalar(bytes[1]))) is not a binary PGM, PPM or PAM")
        }
    }

    /// P5/P6: whitespace-separated width, height, maxval (with `#` comments between), then exactly
    /// one whitespace byte before the pixels.
    private static func parseClassic(_ bytes: [UInt8], depth: Int) throws -> PNMHeader {
        var index = 2
        var numbers: [Int] = []
        while numbers.count < 3 {
            skipWhitespaceAndComments(bytes, &index)
            numbers.append(try readNumber(bytes, &index))
        }
        guard index < bytes.count, isWhitespace(bytes[index]) else { throw bad("the header does not end in whitespace") }
        return try validated(PNMHeader(width: numbers[0], height: numbers[1], depth: depth, maxValue: numbers[2], dataOffset: index + 1))
    }

    /// P7: `KEY value` lines up to `ENDHDR`; TUPLTYPE, when present, must agree with DEPTH.
    private static func parsePAM(_ bytes: [UInt8]) throws -> PNMHeader {
        guard bytes.count > 3, bytes[2] == 0x0A else { throw bad("P7 must be followed by a newline") }
        var fields: [String: String] = [:]
        var lineStart = 3
        while true {
            guard let newline = bytes[lineStart...].prefix(maxPAMHeaderBytes).firstIndex(of: 0x0A) else {
                throw bad("the PAM header has no ENDHDR line")
            }
            let line = String(decoding: bytes[lineStart..<newline], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            lineStart = newline + 1
            if line == "ENDHDR" { break }
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw bad("PAM header line '\(line.prefix(40))' has no value") }
            // TUPLTYPE may repeat (the values join); other keys appearing twice are ambiguous.
            if parts[0] == "TUPLTYPE" {
                fields["TUPLTYPE", default: ""] += parts[1]
            } else {
                guard fields[parts[0]] == nil else { throw bad("PAM header repeats \(parts[0])") }
                fields[parts[0]] = parts[1]
            }
            guard fields.count <= 16, lineStart - 3 <= maxPAMHeaderBytes else { throw bad("the PAM header is too long") }
        }
        func number(_ key: String) throws -> Int {
            guard let text = fields[key] else { throw bad("the PAM header has no \(key)") }
            var index = 0
            let value = try readNumber(Array(text.utf8), &index)
            guard index == text.utf8.count else { throw bad("\(key) '\(text.prefix(20))' is not a number") }
            return value
        }
        let header = PNMHeader(
            width: try number("WIDTH"), height: try number("HEIGHT"), depth: try number("DEPTH"),
            maxValue: try number("MAXVAL"), dataOffset: lineStart)
        if let type = fields["TUPLTYPE"] {
            let depths = ["GRAYSCALE": 1, "GRAYSCALE_ALPHA": 2, "RGB": 3, "RGB_ALPHA": 4, "BLACKANDWHITE": 1, "BLACKANDWHITE_ALPHA": 2]
            guard let expected = depths[type] else { throw unsupported("TUPLTYPE \(type.prefix(30))") }
            guard expected == header.depth else { throw bad("TUPLTYPE \(type) has depth \(expected), the header says \(header.depth)") }
        }
        return try validated(header)
    }

    private static func validated(_ header: PNMHeader) throws -> PNMHeader {
        guard header.width > 0, header.height > 0 else { throw bad("the image is \(header.width)x\(header.height)") }
        guard (1...4).contains(header.depth) else { throw unsupported("depth \(header.depth)") }
        guard header.maxValue > 0 else { throw bad("MAXVAL is 0") }
        // 16-bit samples (maxval above 255) are valid Netpbm, but this example keeps to 8 bits.
        guard header.maxValue <= 255 else { throw unsupported("16-bit samples (maxval \(header.maxValue))") }
        return header
    }

    private static func skipWhitespaceAndComments(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count {
            if isWhitespace(bytes[index]) {
                index += 1
            } else if bytes[index] == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            } else {
                return
            }
        }
    }

    private static func readNumber(_ bytes: [UInt8], _ index: inout Int) throws -> Int {
        var value = 0
        var digits = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            digits += 1
            guard digits <= maxDigits else { throw bad("a header number has more than \(maxDigits) digits") }
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        guard digits > 0 else { throw bad(index < bytes.count ? "expected a number in the header" : "the header is truncated") }
        return value
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    static func bad(_ reason: String) -> ImagePipeError { .badImageData(reason: "PNM: \(reason)") }
    static func unsupported(_ what: String) -> ImagePipeError { .unsupportedFormat(.pnm, reason: "\(what) is not supported") }
}
