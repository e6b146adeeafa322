/// Separable resampling of 8-bit pixel buffers, in fixed point.
///
/// Large reductions first box-average by a whole factor (every source pixel read once, as libvips'
/// `shrink` does), leaving at most 2-3x for the windowed filter, whose cost grows with the reduction.
/// Alpha is premultiplied while filtering, so transparent pixels' colours do not bleed into edges.
extension PixelBuffer {
    /// These pixels at `size` (either side may grow or shrink), filtered with `filter`.
    public func resampled(to size: ImageSize, filter: ResamplingFilter = .lanczos3) -> PixelBuffer {
        precondition(size.width > 0 && size.height > 0, "resample target \(size) has no pixels")
        if size == self.size { return self }
        // Shrink by whole factors while at least 3x too big, keeping 2x+ for the filter.
        let factorX = max(width / (size.width * 2), 1)
        let factorY = max(height / (size.height * 2), 1)
        var source: PixelBuffer
        if factorX > 1 || factorY > 1 {
            // Alpha premultiplied a row at a time as the box reads it: the same sums, without a
            // premultiplied copy of the whole image (a thumbnail's largest write).
            source = Resampler.boxShrink(self, factorX: factorX, factorY: factorY, premultiplying: format.hasAlpha)
        } else {
            source = format.hasAlpha ? Resampler.premultiplied(self) : self
        }
        // The vertical pass streams whole rows and vectorises; the horizontal pass gathers taps per
        // pixel and costs several times more per tap. Shrinking vertically first leaves the
        // horizontal pass fewer rows to filter.
        if size.height < source.height {
            source = Resampler.resampleColumns(source, toHeight: size.height, filter: filter)
        }
        if source.width != size.width {
            source = Resampler.resampleRows(source, toWidth: size.width, filter: filter)
        }
        if source.height != size.height {
            source = Resampler.resampleColumns(source, toHeight: size.height, filter: filter)
        }
        return format.hasAlpha ? Resampler.unpremultiplied(source) : source
    }
}

package enum Resampler {
    /// How often a pass asks whether its work was cancelled: every 2^k rows, about every 64K
    /// pixels, so a 16,000-pixel-wide row is a check of its own and a thumbnail's rows share one.
    static func cancellationCheckMask(rowPixels: Int) -> Int {
        let rows = max(1, 65_536 / max(rowPixels, 1))
        return (1 << (Int.bitWidth - 1 - rows.leadingZeroBitCount)) - 1
    }

    /// Fixed-point precision of filter weights: 14 bits keeps a weight (at most 1.0 plus rounding) in
    /// an Int16 and sums of up to ~100 taps of 255 in Int32.
    static let precisionBits: Int32 = 14

    /// For each output index, the first source index and the weights of the taps from there.
    ///
    /// Weights are Int16 so the compiler can prove every product fits 16 x 16 bits: x86's baseline
    /// (SSE2) has no 32-bit vector multiply, and a multiply of two values it knows are 16-bit
    /// becomes one `pmaddwd` instead of four shuffles around two `pmuludq`s.
    struct Coefficients {
        var starts: [Int] = []
        var counts: [Int] = []
        var weights: [Int16] = []
        var stride = 0
    }

    static func coefficients(inSize: Int, outSize: Int, filter: ResamplingFilter) -> Coefficients {
        let scale = Double(inSize) / Double(outSize)
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        let stride = Int(support.rounded(.up)) * 2 + 1
        var result = Coefficients()
        result.stride = stride
        result.starts.reserveCapacity(outSize)
        result.counts.reserveCapacity(outSize)
        result.weights = [Int16](repeating: 0, count: outSize * stride)
        var taps = [Double](repeating: 0, count: stride)
        var fixed = [Int32](repeating: 0, count: stride)
        for out in 0..<outSize {
            let center = (Double(out) + 0.5) * scale
            let first = max(Int((center - support + 0.5).rounded(.down)), 0)
            let last = min(Int((center + support + 0.5).rounded(.down)), inSize)
            let count = min(max(last - first, 1), stride)
            var total = 0.0
            for t in 0..<count {
                let w = filter.weight((Double(first + t) - center + 0.5) / filterScale)
                taps[t] = w
                total += w
            }
            // Normalise in floating point, then round so the fixed-point weights sum to exactly 1.
            var fixedTotal: Int32 = 0
            for t in 0..<count {
                fixed[t] = Int32((taps[t] / (total == 0 ? 1 : total) * Double(1 << precisionBits)).rounded())
                fixedTotal += fixed[t]
            }
            fixed[count / 2] += (1 << precisionBits) - fixedTotal
            for t in 0..<count { result.weights[out * stride + t] = Int16(clamping: fixed[t]) }
            result.starts.append(min(first, inSize - 1))
            result.counts.append(min(count, inSize - min(first, inSize - 1)))
        }
        return result
    }

    @inline(__always)
    static func clamp(_ value: Int32) -> UInt8 {
        let rounded = (value &+ (1 << (precisionBits - 1))) &>> precisionBits
        return UInt8(truncatingIfNeeded: min(max(rounded, 0), 255))
    }

    @inline(__always)
    static func clamp<V: SIMD>(_ sums: V) -> V where V.Scalar == Int32 {
        let rounded = (sums &+ V(repeating: 1 << (precisionBits - 1))) &>> V(repeating: precisionBits)
        // Sign-bit masks rather than `clamped(lowerBound:upperBound:)` or `replace(with:where:)`,
        // which compile to a loop over lanes through memory; shifts and ands stay in registers.
        let positive = rounded & ~(rounded &>> 31)
        let over = (V(repeating: 255) &- positive) &>> 31
        return (positive & ~over) | (V(repeating: 255) & over)
    }

    static func resampleRows(_ source: PixelBuffer, toWidth width: Int, filter: ResamplingFilter) -> PixelBuffer {
        let c = coefficients(inSize: source.width, outSize: width, filter: filter)
        let channels = source.format.bytesPerPixel
        let height = source.height
        // Uninitialised: every output pixel of every row is written below.
        let out = [UInt8](unsafeUninitializedCapacity: width * height * channels) { output, initialized in
            source.bytes.withUnsafeBufferPointer { input in
                c.weights.withUnsafeBufferPointer { weights in
                    c.starts.withUnsafeBufferPointer { starts in
                        c.counts.withUnsafeBufferPointer { counts in
                            guard let base = input.baseAddress, let result = output.baseAddress else { return }
                            let taps = Taps(weights: weights, starts: starts, counts: counts, stride: c.stride)
                            let rowBytes = source.width * channels
                            let checkMask = Resampler.cancellationCheckMask(rowPixels: width)
                            for y in 0..<height {
                                // A cancelled resample stops; its caller throws at its next check.
                                if y & checkMask == 0, DecodeCancellation.isCurrentCancelled { break }
                                let rowIn = base + y &* rowBytes, rowOut = result + y &* width &* channels
                                // One call per channel count, so the channel loop unrolls and the
                                // per-tap branches disappear: this pass gathers taps pixel by pixel.
                                switch channels {
                                case 1: filterRow(rowIn, rowOut, taps, width: width, channels: 1)
                                case 2: filterRow(rowIn, rowOut, taps, width: width, channels: 2)
                                // Four-byte loads read one byte past a 3-byte pixel: past the
                                // buffer's end on its last row, which takes the scalar loop.
                                case 3 where y + 1 < height: filterRowVector(rowIn, rowOut, taps, width: width, channels: 3)
                                case 3: filterRow(rowIn, rowOut, taps, width: width, channels: 3)
                                default: filterRowVector(rowIn, rowOut, taps, width: width, channels: 4)
                                }
                            }
                        }
                    }
                }
            }
            initialized = output.count
        }
        return PixelBuffer(unchecked: width, height: height, format: source.format, bytes: out)
    }

    struct Taps {
        let weights: UnsafeBufferPointer<Int16>
        let starts: UnsafeBufferPointer<Int>
        let counts: UnsafeBufferPointer<Int>
        let stride: Int
    }

    /// One row, channel by channel in scalar registers.
    @inline(__always)
    static func filterRow(_ rowIn: UnsafePointer<UInt8>, _ rowOut: UnsafeMutablePointer<UInt8>, _ taps: Taps, width: Int, channels: Int) {
        guard let weights = taps.weights.baseAddress else { return }
        for x in 0..<width {
            var s0: Int32 = 0, s1: Int32 = 0, s2: Int32 = 0, s3: Int32 = 0
            let w0 = weights + x &* taps.stride
            var p = rowIn + taps.starts[x] &* channels
            for t in 0..<taps.counts[x] {
                let w = Int32(w0[t])
                s0 &+= w &* Int32(p[0])
                if channels > 1 { s1 &+= w &* Int32(p[1]) }
                if channels > 2 { s2 &+= w &* Int32(p[2]) }
                if channels > 3 { s3 &+= w &* Int32(p[3]) }
                p += channels
            }
            let o = rowOut + x &* channels
            o[0] = clamp(s0)
            if channels > 1 { o[1] = clamp(s1) }
            if channels > 2 { o[2] = clamp(s2) }
            if channels > 3 { o[3] = clamp(s3) }
        }
    }

    /// One row of 3- or 4-byte pixels, a pixel's channels in the lanes of one vector: a tap is one
    /// load, one widening and one 16-bit multiply-add for all channels. (Pairing two taps per
    /// multiply-add, as hand-written SIMD does, needs a byte shuffle the compiler scalarises.)
    /// Reads and writes four bytes per pixel (one past a 3-byte pixel, rewritten by the next pixel),
    /// so the caller keeps it off the input's last row, and the row's last pixel is written byte by
    /// byte.
    @inline(__always)
    static func filterRowVector(_ rowIn: UnsafePointer<UInt8>, _ rowOut: UnsafeMutablePointer<UInt8>, _ taps: Taps, width: Int, channels: Int) {
        guard let weights = taps.weights.baseAddress else { return }
        let raw = UnsafeRawPointer(rowIn)
        for x in 0..<width {
            var sums = SIMD4<Int32>()
            let w = weights + x &* taps.stride
            var offset = taps.starts[x] &* channels
            for t in 0..<taps.counts[x] {
                let pixel = SIMD4<Int32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
                sums &+= pixel &* SIMD4(repeating: Int32(w[t]))
                offset &+= channels
            }
            let bytes = SIMD4<UInt8>(truncatingIfNeeded: clamp(sums))
            let o = rowOut + x &* channels
            if channels == 4 || x &+ 1 < width {
                UnsafeMutableRawPointer(o).storeBytes(of: bytes, as: SIMD4<UInt8>.self)
            } else {
                o[0] = bytes[0]
                o[1] = bytes[1]
                o[2] = bytes[2]
            }
        }
    }

    static func resampleColumns(_ source: PixelBuffer, toHeight height: Int, filter: ResamplingFilter) -> PixelBuffer {
        let c = coefficients(inSize: source.height, outSize: height, filter: filter)
        let rowBytes = source.width * source.format.bytesPerPixel
        // Uninitialised: every byte of every output row is written below.
        let out = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { output, initialized in
            source.bytes.withUnsafeBufferPointer { input in
                c.weights.withUnsafeBufferPointer { weights in
                    guard let base = input.baseAddress, let result = output.baseAddress, let w = weights.baseAddress else { return }
                    let checkMask = Resampler.cancellationCheckMask(rowPixels: source.width)
                    for y in 0..<height {
                        if y & checkMask == 0, DecodeCancellation.isCurrentCancelled { break }
                        filterColumns(
                            from: base + c.starts[y] &* rowBytes, rowBytes: rowBytes, count: c.counts[y],
                            weights: w + y &* c.stride, into: result + y &* rowBytes)
                    }
                }
            }
            initialized = output.count
        }
        return PixelBuffer(unchecked: source.width, height: height, format: source.format, bytes: out)
    }

    /// One output row of the vertical pass: `count` input rows from `first`, `rowBytes` apart,
    /// weighted and summed 16 bytes at a time in registers: every tap is a 16-byte load and four
    /// multiply-adds, and nothing but the result is written back.
    @inline(__always)
    static func filterColumns(from first: UnsafePointer<UInt8>, rowBytes: Int, count: Int, weights: UnsafePointer<Int16>, into target: UnsafeMutablePointer<UInt8>) {
        var i = 0
        while i &+ 16 <= rowBytes {
            var sums = SIMD16<Int32>()
            var row = UnsafeRawPointer(first + i)
            for t in 0..<count {
                let bytes = SIMD16<Int32>(truncatingIfNeeded: row.loadUnaligned(as: SIMD16<UInt8>.self))
                sums &+= bytes &* SIMD16(repeating: Int32(weights[t]))
                row += rowBytes
            }
            UnsafeMutableRawPointer(target + i).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: clamp(sums)), as: SIMD16<UInt8>.self)
            i &+= 16
        }
        while i < rowBytes {
            var sum: Int32 = 0
            for t in 0..<count { sum &+= Int32(weights[t]) &* Int32(first[t &* rowBytes &+ i]) }
            target[i] = clamp(sum)
            i &+= 1
        }
    }

    /// Averages `factorX` x `factorY` blocks; edge blocks average the pixels they have. Every source
    /// pixel is read once, in order: a block row's source rows are added into per-column sums (a
    /// loop the compiler vectorises), which are then summed across each block. With
    /// `premultiplying`, each source row is premultiplied (as `premultiplied` does) before it is
    /// added, so the result is that of shrinking `premultiplied(source)`.
    static func boxShrink(_ source: PixelBuffer, factorX: Int, factorY: Int, premultiplying: Bool = false) -> PixelBuffer {
        let channels = source.format.bytesPerPixel
        let width = (source.width + factorX - 1) / factorX
        let height = (source.height + factorY - 1) / factorY
        let rowBytes = width * channels
        let sourceRowBytes = source.width * channels
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        var sums = [UInt32](repeating: 0, count: sourceRowBytes)
        var premultipliedRow = [UInt8](repeating: 0, count: premultiplying ? sourceRowBytes : 0)
        source.bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                sums.withUnsafeMutableBufferPointer { accumulator in
                    premultipliedRow.withUnsafeMutableBufferPointer { scratch in
                        guard let base = input.baseAddress, let result = output.baseAddress, let acc = accumulator.baseAddress else { return }
                        let checkMask = Resampler.cancellationCheckMask(rowPixels: source.width * factorY)
                        for y in 0..<height {
                            if y & checkMask == 0, DecodeCancellation.isCurrentCancelled { break }
                            acc.update(repeating: 0, count: sourceRowBytes)
                            let y0 = y &* factorY, y1 = min(y0 &+ factorY, source.height)
                            for sy in y0..<y1 {
                                var row = base + sy &* sourceRowBytes
                                if premultiplying, let copy = scratch.baseAddress {
                                    copy.update(from: row, count: sourceRowBytes)
                                    premultiply(scratch, channels: channels)
                                    row = UnsafePointer(copy)
                                }
                                for i in 0..<sourceRowBytes { acc[i] &+= UInt32(row[i]) }
                            }
                            let target = result + y &* rowBytes
                            let rows = UInt32(y1 &- y0)
                            // A constant channel count per call, so the channel loop unrolls.
                            switch channels {
                            case 1: averageBlocks(acc, into: target, width: width, sourceWidth: source.width, factor: factorX, rows: rows, channels: 1)
                            case 2: averageBlocks(acc, into: target, width: width, sourceWidth: source.width, factor: factorX, rows: rows, channels: 2)
                            case 3: averageBlocks(acc, into: target, width: width, sourceWidth: source.width, factor: factorX, rows: rows, channels: 3)
                            default: averageBlocks(acc, into: target, width: width, sourceWidth: source.width, factor: factorX, rows: rows, channels: 4)
                            }
                        }
                    }
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, format: source.format, bytes: out)
    }

    /// One output row from per-column sums of `rows` rows: each block of `factor` columns summed
    /// and averaged.
    @inline(__always)
    static func averageBlocks(
        _ columns: UnsafePointer<UInt32>, into target: UnsafeMutablePointer<UInt8>, width: Int, sourceWidth: Int, factor: Int, rows: UInt32, channels: Int
    ) {
        for x in 0..<width {
            let x0 = x &* factor, x1 = min(x0 &+ factor, sourceWidth)
            let n = UInt32(x1 &- x0) &* rows
            var s0: UInt32 = 0, s1: UInt32 = 0, s2: UInt32 = 0, s3: UInt32 = 0
            var p = columns + x0 &* channels
            for _ in x0..<x1 {
                s0 &+= p[0]
                if channels > 1 { s1 &+= p[1] }
                if channels > 2 { s2 &+= p[2] }
                if channels > 3 { s3 &+= p[3] }
                p += channels
            }
            let o = target + x &* channels
            o[0] = UInt8(truncatingIfNeeded: (s0 &+ n / 2) / n)
            if channels > 1 { o[1] = UInt8(truncatingIfNeeded: (s1 &+ n / 2) / n) }
            if channels > 2 { o[2] = UInt8(truncatingIfNeeded: (s2 &+ n / 2) / n) }
            if channels > 3 { o[3] = UInt8(truncatingIfNeeded: (s3 &+ n / 2) / n) }
        }
    }

    package static func premultiplied(_ buffer: PixelBuffer) -> PixelBuffer {
        var bytes = buffer.bytes
        bytes.withUnsafeMutableBufferPointer { premultiply($0, channels: buffer.format.bytesPerPixel) }
        return PixelBuffer(unchecked: buffer.width, height: buffer.height, format: buffer.format, bytes: bytes)
    }

    /// Premultiplies pixels of `channels` bytes, alpha last, in place.
    @inline(__always)
    static func premultiply(_ p: UnsafeMutableBufferPointer<UInt8>, channels: Int) {
        var i = 0
        while i < p.count {
            let a = UInt32(p[i + channels - 1])
            if a != 255 {
                for ch in 0..<(channels - 1) { p[i + ch] = UInt8((UInt32(p[i + ch]) * a + 127) / 255) }
            }
            i += channels
        }
    }

    package static func unpremultiplied(_ buffer: PixelBuffer) -> PixelBuffer {
        let channels = buffer.format.bytesPerPixel
        var bytes = buffer.bytes
        bytes.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let a = UInt32(p[i + channels - 1])
                if a == 0 {
                    for ch in 0..<(channels - 1) { p[i + ch] = 0 }
                } else if a != 255 {
                    for ch in 0..<(channels - 1) { p[i + ch] = UInt8(min((UInt32(p[i + ch]) * 255 + a / 2) / a, 255)) }
                }
                i += channels
            }
        }
        return PixelBuffer(unchecked: buffer.width, height: buffer.height, format: buffer.format, bytes: bytes)
    }
}
