/// TIFF's horizontal differencing (Predictor 2) for 8-bit interleaved samples: each sample is
/// stored as its difference from the same sample of the pixel to its left, modulo 256, starting
/// afresh on every row of a strip or tile.
enum TIFFHorizontalPredictor {
    /// Writes the `count` bytes of one stored row at `source` (whole pixels of `samplesPerPixel`
    /// 8-bit samples) to `target` as the samples they encode. The running sums stay in registers,
    /// one per sample of a pixel (a call of its own: inlined into the tile loop, the pointers were
    /// spilled and reloaded every pixel).
    @inline(never)
    static func undo(_ source: UnsafeRawPointer, into target: UnsafeMutableRawPointer, count: Int, samplesPerPixel: Int) {
        let from = source.assumingMemoryBound(to: UInt8.self), to = target.assumingMemoryBound(to: UInt8.self)
        switch samplesPerPixel {
        case 1: accumulate(from, to, count: count, samples: 1)
        case 2: accumulate(from, to, count: count, samples: 2)
        case 3: accumulate(from, to, count: count, samples: 3)
        case 4: accumulate(from, to, count: count, samples: 4)
        default:
            // Read back from the output: slower, for pixels of more samples than the sums above hold.
            for i in 0..<count { to[i] = i < samplesPerPixel ? from[i] : to[i - samplesPerPixel] &+ from[i] }
        }
    }

    @inline(__always)
    private static func accumulate(_ from: UnsafePointer<UInt8>, _ to: UnsafeMutablePointer<UInt8>, count: Int, samples: Int) {
        var s0: UInt8 = 0, s1: UInt8 = 0, s2: UInt8 = 0, s3: UInt8 = 0
        var i = 0
        while i + samples <= count {
            s0 &+= from[i]
            to[i] = s0
            if samples > 1 {
                s1 &+= from[i + 1]
                to[i + 1] = s1
            }
            if samples > 2 {
                s2 &+= from[i + 2]
                to[i + 2] = s2
            }
            if samples > 3 {
                s3 &+= from[i + 3]
                to[i + 3] = s3
            }
            i += samples
        }
    }
}
