import Foundation
import PipelineCore

/// `g:sm`: the crop window with the most detail, measured as the entropy of its luminance
/// histogram. Windows slide along the one axis the crop leaves slack on; flat areas (sky, walls)
/// score low, edges and texture high.
enum SmartCrop {
    /// Windows compared along the slack axis.
    static let positions = 17
    /// Pixels sampled per window at most: the score needs a histogram, not every pixel.
    static let samplesPerWindow = 16_384

    static func origin(of crop: ImageSize, in buffer: PixelBuffer) -> (x: Int, y: Int) {
        let slackX = buffer.width - crop.width, slackY = buffer.height - crop.height
        guard slackX > 0 || slackY > 0 else { return (0, 0) }
        let gray = buffer.converted(to: .gray8)
        var best = (x: slackX / 2, y: slackY / 2), bestScore = -1.0
        for step in 0..<positions {
            let fraction = Double(step) / Double(positions - 1)
            let x = Int((Double(slackX) * fraction).rounded()), y = Int((Double(slackY) * fraction).rounded())
            let score = entropy(gray, x: slackX > 0 ? x : slackX / 2, y: slackY > 0 ? y : slackY / 2, size: crop)
            // Strictly greater, comparing from the start: ties keep the earlier (top or left) window,
            // then the centre wins a flat image through the initial choice.
            if score > bestScore + 1e-9 {
                bestScore = score
                best = (slackX > 0 ? x : slackX / 2, slackY > 0 ? y : slackY / 2)
            }
        }
        return best
    }

    /// Shannon entropy (bits) of the window's gray levels, sampled on a regular grid.
    static func entropy(_ gray: PixelBuffer, x: Int, y: Int, size: ImageSize) -> Double {
        let stride = max(1, Int((Double(size.width * size.height) / Double(samplesPerWindow)).squareRoot().rounded(.up)))
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        gray.bytes.withUnsafeBufferPointer { pixels in
            var row = y
            while row < y + size.height {
                var column = x
                let base = row * gray.bytesPerRow
                while column < x + size.width {
                    histogram[Int(pixels[base + column])] += 1
                    count += 1
                    column += stride
                }
                row += stride
            }
        }
        guard count > 0 else { return 0 }
        var bits = 0.0
        for n in histogram where n > 0 {
            let p = Double(n) / Double(count)
            bits -= p * log2(p)
        }
        return bits
    }
}
