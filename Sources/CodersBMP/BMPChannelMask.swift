/// One channel of a 16- or 32-bit pixel, as a bit mask (BITFIELDS, or the defaults): where its
/// bits sit and how to widen them to 8 bits.
struct BMPChannelMask: Equatable {
    let mask: UInt32
    let shift: UInt32
    let bits: UInt32

    /// nil for a mask whose bits are not contiguous, which no writer makes.
    init?(_ mask: UInt32) {
        self.mask = mask
        guard mask != 0 else {
            shift = 0
            bits = 0
            return
        }
        shift = UInt32(mask.trailingZeroBitCount)
        let run = mask >> shift
        bits = UInt32(run.nonzeroBitCount)
        guard run & (run &+ 1) == 0 else { return nil }
    }

    var isEmpty: Bool { bits == 0 }

    /// The channel of `pixel` scaled to 0...255; `empty` when the mask has no bits.
    @inline(__always)
    func value(_ pixel: UInt32, empty: UInt8 = 0) -> UInt8 {
        guard bits > 0 else { return empty }
        let v = (pixel & mask) >> shift
        if bits >= 8 { return UInt8(truncatingIfNeeded: v >> (bits - 8)) }
        let maximum = (UInt32(1) << bits) - 1
        return UInt8(truncatingIfNeeded: (v * 255 + maximum / 2) / maximum)
    }
}
