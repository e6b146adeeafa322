import Foundation
import PipelineCore

/// Netpbm PAM files (`P7`, as `pamtopam`, `pamstack` and `winicontopam` write them), one or several
/// images one after another: the reference pixels netpbm's readers made of the TIFF, BMP and ICO
/// fixtures. Samples are scaled to 8 bits (rounded) whatever the maxval.
public enum ReferencePAM {
    /// Every image in `url`, as 8-bit pixels of the format its depth says (1 gray, 2 gray and
    /// alpha, 3 RGB, 4 RGBA); nil when the file is not such a PAM.
    public static func read(_ url: URL) -> [PixelBuffer]? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        let bytes = [UInt8](data)
        var images: [PixelBuffer] = []
        var at = 0
        while at < bytes.count {
            guard let (image, next) = image(bytes, at: at) else { return nil }
            images.append(image)
            at = next
            while at < bytes.count, bytes[at] == 0x0A || bytes[at] == 0x20 { at += 1 }
        }
        return images.isEmpty ? nil : images
    }

    private static func image(_ bytes: [UInt8], at start: Int) -> (PixelBuffer, Int)? {
        guard bytes.count - start > 3, bytes[start] == 0x50, bytes[start + 1] == 0x37 else { return nil }
        var fields: [String: String] = [:]
        var at = start + 3
        while true {
            guard let end = bytes[at...].firstIndex(of: 0x0A) else { return nil }
            let line = String(decoding: bytes[at..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            at = end + 1
            if line == "ENDHDR" { break }
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let width = fields["WIDTH"].flatMap(Int.init), let height = fields["HEIGHT"].flatMap(Int.init),
            let depth = fields["DEPTH"].flatMap(Int.init), let maxval = fields["MAXVAL"].flatMap(Int.init), (1...4).contains(depth)
        else { return nil }
        let sampleBytes = maxval > 255 ? 2 : 1
        let count = width * height * depth
        guard bytes.count - at >= count * sampleBytes else { return nil }
        var samples = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            let v = sampleBytes == 2 ? Int(bytes[at + 2 * i]) << 8 | Int(bytes[at + 2 * i + 1]) : Int(bytes[at + i])
            samples[i] = UInt8((v * 255 + maxval / 2) / maxval)
        }
        let format: PixelFormat = [.gray8, .grayAlpha8, .rgb8, .rgba8][depth - 1]
        guard let buffer = try? PixelBuffer(width: width, height: height, format: format, bytes: samples) else { return nil }
        return (buffer, at + count * sampleBytes)
    }

    /// The largest difference between two buffers of one size, per channel, after converting
    /// `actual` to `expected`'s format; nil when their sizes differ.
    public static func maxDifference(_ actual: PixelBuffer, _ expected: PixelBuffer) -> Int? {
        guard actual.size == expected.size else { return nil }
        let converted = actual.converted(to: expected.format)
        return zip(converted.bytes, expected.bytes).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// `buffer` with its colour multiplied by alpha (rounded), for references stored premultiplied.
    public static func premultiplied(_ buffer: PixelBuffer) -> PixelBuffer {
        guard buffer.format.hasAlpha else { return buffer }
        let channels = buffer.format.channelCount
        var bytes = buffer.bytes
        for p in stride(from: 0, to: bytes.count, by: channels) {
            let a = Int(bytes[p + channels - 1])
            for c in 0..<(channels - 1) { bytes[p + c] = UInt8((Int(bytes[p + c]) * a + 127) / 255) }
        }
        return (try? PixelBuffer(width: buffer.width, height: buffer.height, format: buffer.format, bytes: bytes)) ?? buffer
    }
}
