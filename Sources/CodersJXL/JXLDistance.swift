import Foundation

/// JPEG XL's quality setting: libjxl takes a Butteraugli distance (0 lossless, 1 visually
/// lossless, larger is smaller and worse), which cjxl maps from a 0-100 quality so that quality
/// means what it does for libjpeg. The same mapping here, so `--quality 80` and `cjxl -q 80`
/// write the same file.
enum JXLDistance {
    /// cjxl 0.7's mapping: 100 is lossless, 90 is distance 1, 30 is 6.4, below 30 the distance
    /// grows fast; capped at libjxl's maximum of 25.
    static func forQuality(_ percent: Int) -> Float {
        let quality = Double(min(max(percent, 0), 100))
        if quality >= 100 { return 0 }
        let distance = quality >= 30 ? 0.1 + (100 - quality) * 0.09 : 6.4 + pow(2.5, (30 - quality) / 5) / 6.25
        return Float(min(distance, 25))
    }
}
