import CZlib
import Foundation

/// Reads the reference PNGs that the corpora ship beside their test files, as straight RGBA8.
/// Test-only and deliberately small: non-interlaced PNGs, palette at 1/2/4/8 bits, gray, gray+alpha,
/// RGB and RGBA at 8 bits (what the references use), and those at 16 bits rounded to 8 (what
/// reference decoders write for 10- and 12-bit images). Anything else gives nil, so a test can say
/// it could not check rather than fail.
public enum ReferencePNG {
    public struct Pixels: Sendable {
        public let width: Int
        public let height: Int
        public let rgba: [UInt8]
    }

    public static func read(_ url: URL) -> Pixels? {
        guard let data = try? [UInt8](Data(contentsOf: url)), data.count > 8,
            data.prefix(8).elementsEqual([137, 80, 78, 71, 13, 10, 26, 10])
        else { return nil }
        var offset = 8
        var width = 0, height = 0, depth = 0, colorType = 0
        var palette: [UInt8] = [], paletteAlpha: [UInt8] = [], key: [Int]? = nil
        var compressed: [UInt8] = []
        func u32(_ at: Int) -> Int { Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3]) }
        while offset + 12 <= data.count {
            let length = u32(offset)
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            let body = offset + 8
            guard length >= 0, body + length + 4 <= data.count else { return nil }
            let chunk = Array(data[body..<body + length])
            switch type {
            case "IHDR":
                guard chunk.count == 13 else { return nil }
                width = u32(body)
                height = u32(body + 4)
                depth = Int(chunk[8])
                colorType = Int(chunk[9])
                guard chunk[12] == 0 else { return nil }  // interlaced: not needed by any reference
            case "PLTE": palette = chunk
            case "tRNS":
                if colorType == 3 { paletteAlpha = chunk }
                if colorType == 2, chunk.count == 6 { key = [0, 2, 4].map { Int(chunk[$0]) << 8 | Int(chunk[$0 + 1]) } }
                if colorType == 0, chunk.count == 2 { key = [Int(chunk[0]) << 8 | Int(chunk[1])] }
            case "IDAT": compressed += chunk
            case "IEND": break
            default: break
            }
            offset = body + length + 4
        }
        let channels: Int
        switch colorType {
        case 0: channels = 1
        case 2: channels = 3
        case 3: channels = 1
        case 4: channels = 2
        case 6: channels = 4
        default: return nil
        }
        guard width > 0, height > 0, depth == 8 || (depth == 16 && colorType != 3) || (colorType == 3 && [1, 2, 4].contains(depth)) else { return nil }
        let bitsPerPixel = channels * depth
        var rowBytes = (width * bitsPerPixel + 7) / 8
        let filterStep = max(1, bitsPerPixel / 8)
        var raw = [UInt8](repeating: 0, count: height * (rowBytes + 1))
        var rawLength = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { source in
                uncompress(out.baseAddress, &rawLength, source.baseAddress, uLong(source.count))
            }
        }
        guard status == Z_OK, Int(rawLength) == raw.count else { return nil }

        var rows = [UInt8](repeating: 0, count: height * rowBytes)
        for y in 0..<height {
            let filter = raw[y * (rowBytes + 1)]
            let src = y * (rowBytes + 1) + 1
            let dst = y * rowBytes
            for x in 0..<rowBytes {
                let value = Int(raw[src + x])
                let a = x >= filterStep ? Int(rows[dst + x - filterStep]) : 0
                let b = y > 0 ? Int(rows[dst - rowBytes + x]) : 0
                let c = x >= filterStep && y > 0 ? Int(rows[dst - rowBytes + x - filterStep]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predicted = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: return nil
                }
                rows[dst + x] = UInt8((value + predicted) & 0xff)
            }
        }
        if depth == 16 {
            let samples = width * channels
            var narrowed = [UInt8](repeating: 0, count: height * samples)
            for y in 0..<height {
                for index in 0..<samples {
                    let at = y * rowBytes + 2 * index
                    narrowed[y * samples + index] = UInt8((Int(rows[at]) << 8 | Int(rows[at + 1])) * 255 / 65535)
                }
            }
            rows = narrowed
            rowBytes = samples
            key = nil
        }

        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                let row = y * rowBytes
                switch colorType {
                case 3:
                    let bit = x * depth
                    let index = Int(rows[row + bit / 8] >> (8 - depth - bit % 8)) & ((1 << depth) - 1)
                    guard index * 3 + 2 < palette.count else { return nil }
                    rgba[o] = palette[index * 3]
                    rgba[o + 1] = palette[index * 3 + 1]
                    rgba[o + 2] = palette[index * 3 + 2]
                    rgba[o + 3] = index < paletteAlpha.count ? paletteAlpha[index] : 255
                case 0, 4:
                    let gray = rows[row + x * channels]
                    rgba[o] = gray
                    rgba[o + 1] = gray
                    rgba[o + 2] = gray
                    rgba[o + 3] = colorType == 4 ? rows[row + x * 2 + 1] : (key == [Int(gray)] ? 0 : 255)
                default:
                    let p = row + x * channels
                    rgba[o] = rows[p]
                    rgba[o + 1] = rows[p + 1]
                    rgba[o + 2] = rows[p + 2]
                    rgba[o + 3] = channels == 4 ? rows[p + 3] : (key == [Int(rows[p]), Int(rows[p + 1]), Int(rows[p + 2])] ? 0 : 255)
                }
            }
        }
        return Pixels(width: width, height: height, rgba: rgba)
    }
}
