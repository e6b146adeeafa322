import PipelineCore

/// A frame reduced to at most 256 colours: palette (RGB triples), one index per pixel, and the
/// index that means "transparent" when the source had any.
struct GIFPalettedFrame {
    var palette: [UInt8]
    var indices: [UInt8]
    var transparentIndex: Int?
    var colorCount: Int { palette.count / 3 }
}

/// Median cut (Heckbert): frames with at most 255/256 colours keep them exactly; others get their
/// colours from a 15-bit histogram split box by box along the longest axis at the weighted median.
/// Pixels with alpha under 128 become the transparent index, since GIF has 1-bit alpha.
///
/// Each pass over the pixels asks the work's cancellation every `checkInterval` pixels: a frame
/// of tens of megapixels takes seconds to quantize, which a cancelled encode must not spend.
enum GIFQuantizer {
    /// Pixels between two cancellation checks: well under a millisecond of any pass.
    static let checkInterval = 1 << 16

    static func quantize(_ source: PixelBuffer) throws -> GIFPalettedFrame {
        try DecodeCancellation.checkCurrent()
        let buffer = source.format == .rgba8 ? source : source.converted(to: .rgba8)
        try DecodeCancellation.checkCurrent()
        let pixels = buffer.bytes
        let pixelCount = buffer.width * buffer.height
        var hasTransparency = false
        var i = 3
        while i < pixels.count {
            if i & (checkInterval * 4 - 1) == 3 { try DecodeCancellation.checkCurrent() }
            if pixels[i] < 128 {
                hasTransparency = true
                break
            }
            i += 4
        }
        let maxColors = hasTransparency ? 255 : 256

        if let exact = try exactPalette(pixels, maxColors: maxColors) {
            var indices = [UInt8](repeating: 0, count: pixelCount)
            var palette: [UInt8] = []
            var lookup: [UInt32: UInt8] = [:]
            for (n, color) in exact.enumerated() {
                lookup[color] = UInt8(n)
                palette += [UInt8(color >> 16 & 0xff), UInt8(color >> 8 & 0xff), UInt8(color & 0xff)]
            }
            let transparent = hasTransparency ? exact.count : nil
            for p in 0..<pixelCount {
                if p & (checkInterval - 1) == 0 { try DecodeCancellation.checkCurrent() }
                let o = p * 4
                if pixels[o + 3] < 128, let transparent {
                    indices[p] = UInt8(transparent)
                    continue
                }
                indices[p] = lookup[key(pixels, o)] ?? 0
            }
            if transparent != nil { palette += [0, 0, 0] }
            return GIFPalettedFrame(palette: palette, indices: indices, transparentIndex: transparent)
        }
        return try medianCut(pixels, pixelCount: pixelCount, maxColors: maxColors, hasTransparency: hasTransparency)
    }

    @inline(__always)
    private static func key(_ pixels: [UInt8], _ o: Int) -> UInt32 {
        UInt32(pixels[o]) << 16 | UInt32(pixels[o + 1]) << 8 | UInt32(pixels[o + 2])
    }

    /// The distinct opaque colours, or nil as soon as there are more than `maxColors`.
    private static func exactPalette(_ pixels: [UInt8], maxColors: Int) throws -> [UInt32]? {
        var seen = Set<UInt32>()
        var order: [UInt32] = []
        var o = 0
        while o < pixels.count {
            if o & (checkInterval * 4 - 1) == 0 { try DecodeCancellation.checkCurrent() }
            if pixels[o + 3] >= 128 {
                let color = key(pixels, o)
                if seen.insert(color).inserted {
                    order.append(color)
                    if order.count > maxColors { return nil }
                }
            }
            o += 4
        }
        return order.isEmpty ? [0] : order
    }

    private struct Bin {
        var bin: Int
        var count: Int
        var r: Int
        var g: Int
        var b: Int
    }

    private static func medianCut(_ pixels: [UInt8], pixelCount: Int, maxColors: Int, hasTransparency: Bool) throws -> GIFPalettedFrame {
        var histogram = [Bin](repeating: Bin(bin: 0, count: 0, r: 0, g: 0, b: 0), count: 32768)
        var binOfPixel = [UInt16](repeating: 0, count: pixelCount)
        for p in 0..<pixelCount {
            if p & (checkInterval - 1) == 0 { try DecodeCancellation.checkCurrent() }
            let o = p * 4
            guard pixels[o + 3] >= 128 else { continue }
            let r = Int(pixels[o]), g = Int(pixels[o + 1]), b = Int(pixels[o + 2])
            let bin = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
            histogram[bin].count += 1
            histogram[bin].r += r
            histogram[bin].g += g
            histogram[bin].b += b
            binOfPixel[p] = UInt16(bin)
        }
        var bins: [Bin] = []
        for (n, var entry) in histogram.enumerated() where entry.count > 0 {
            entry.bin = n
            bins.append(entry)
        }
        // Boxes are ranges of `bins`, which is re-sorted in place inside a box when it splits.
        var boxes: [Range<Int>] = [0..<bins.count]
        func channel(_ bin: Int, _ axis: Int) -> Int { (bin >> (10 - axis * 5)) & 31 }
        func extent(_ box: Range<Int>) -> (axis: Int, range: Int, population: Int) {
            var lo = [31, 31, 31], hi = [0, 0, 0], population = 0
            for entry in bins[box] {
                population += entry.count
                for axis in 0..<3 {
                    let value = channel(entry.bin, axis)
                    lo[axis] = min(lo[axis], value)
                    hi[axis] = max(hi[axis], value)
                }
            }
            let ranges = (0..<3).map { hi[$0] - lo[$0] }
            let axis = ranges.firstIndex(of: ranges.max()!)!
            return (axis, ranges[axis], population)
        }
        while boxes.count < maxColors {
            try DecodeCancellation.checkCurrent()
            // Split the box where it matters most: widest colour range weighted by pixels in it.
            var best: (box: Int, axis: Int, score: Int)?
            for (n, box) in boxes.enumerated() where box.count > 1 {
                let e = extent(box)
                let score = e.range * e.population
                if e.range > 0, score > (best?.score ?? 0) { best = (n, e.axis, score) }
            }
            guard let best else { break }
            let box = boxes[best.box]
            bins[box].sort { channel($0.bin, best.axis) < channel($1.bin, best.axis) }
            let half = bins[box].reduce(0) { $0 + $1.count } / 2
            var running = 0
            var cut = box.lowerBound + 1
            for n in box {
                running += bins[n].count
                if running >= half {
                    cut = min(max(n + 1, box.lowerBound + 1), box.upperBound - 1)
                    break
                }
            }
            boxes[best.box] = box.lowerBound..<cut
            boxes.append(cut..<box.upperBound)
        }
        var binToIndex = [UInt8](repeating: 0, count: 32768)
        var palette: [UInt8] = []
        for (n, box) in boxes.enumerated() {
            var r = 0, g = 0, b = 0, count = 0
            for entry in bins[box] {
                r += entry.r
                g += entry.g
                b += entry.b
                count += entry.count
                binToIndex[entry.bin] = UInt8(n)
            }
            let c = max(count, 1)
            palette += [UInt8((r + c / 2) / c), UInt8((g + c / 2) / c), UInt8((b + c / 2) / c)]
        }
        if palette.isEmpty { palette = [0, 0, 0] }
        let transparent = hasTransparency ? palette.count / 3 : nil
        if hasTransparency { palette += [0, 0, 0] }
        var indices = [UInt8](repeating: 0, count: pixelCount)
        for p in 0..<pixelCount {
            if p & (checkInterval - 1) == 0 { try DecodeCancellation.checkCurrent() }
            if let transparent, pixels[p * 4 + 3] < 128 { indices[p] = UInt8(transparent) } else { indices[p] = binToIndex[Int(binOfPixel[p])] }
        }
        return GIFPalettedFrame(palette: palette, indices: indices, transparentIndex: transparent)
    }
}
