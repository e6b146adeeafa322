import PipelineCore

/// The colour most of an image is: pixels counted in buckets of 16 levels a channel (transparent
/// ones left out), and the average of the fullest bucket, so noise and gradients within one hue
/// still count together.
enum DominantColor {
    /// Nil when every pixel is transparent.
    static func of(_ buffer: PixelBuffer) -> ImageColor? {
        let rgba = buffer.converted(to: .rgba8)
        var counts = [Int](repeating: 0, count: 4096)
        var sums = [(Int, Int, Int)](repeating: (0, 0, 0), count: 4096)
        let bytes = rgba.bytes
        var offset = 0
        while offset < bytes.count {
            if bytes[offset + 3] >= 128 {
                let (r, g, b) = (Int(bytes[offset]), Int(bytes[offset + 1]), Int(bytes[offset + 2]))
                let bucket = (r >> 4) << 8 | (g >> 4) << 4 | b >> 4
                counts[bucket] += 1
                sums[bucket].0 += r
                sums[bucket].1 += g
                sums[bucket].2 += b
            }
            offset += 4
        }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return nil }
        let count = counts[best], sum = sums[best]
        return ImageColor(red: UInt8((sum.0 + count / 2) / count), green: UInt8((sum.1 + count / 2) / count), blue: UInt8((sum.2 + count / 2) / count))
    }

    /// `#rrggbb`.
    static func hex(_ color: ImageColor) -> String {
        "#" + [color.red, color.green, color.blue].map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
