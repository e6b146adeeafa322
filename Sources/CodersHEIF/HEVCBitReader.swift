/// The bits of an HEVC NAL unit read as libde265 1.0 reads them: emulation prevention bytes (the
/// 03 of 00 00 03) removed from the whole unit, header included; most significant bit first;
/// zeros past the end; and ue(v) codes of more than 20 leading zeros refused (its UVLC_ERROR).
/// Reading exactly as the decoder does is what lets a check made here agree with it.
struct HEVCBitReader {
    private var bytes: [UInt8] = []
    private var position = 0

    /// Parameter sets are small: the fields read from them lie in their first few hundred bytes
    /// (at most about 300 for a sequence parameter set's fields up to its transform sizes).
    static let bytesRead = 1024

    /// `nal`: a whole NAL unit, its 2-byte header first; only its first `bytesRead` bytes are used.
    init(_ nal: ArraySlice<UInt8>) {
        var zeros = 0
        bytes.reserveCapacity(min(nal.count, Self.bytesRead))
        for byte in nal.prefix(Self.bytesRead) {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            bytes.append(byte)
        }
    }

    /// An unsigned value of `count` bits (0 to 32); bits past the end read as zeros.
    mutating func bits(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<min(max(count, 0), 32) {
            let bit = position < bytes.count * 8 ? Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1) : 0
            value = value << 1 | bit
            position += 1
        }
        return value
    }

    mutating func flag() -> Bool { bits(1) == 1 }

    mutating func skip(_ count: Int) {
        position += max(count, 0)
    }

    /// ue(v); nil for a code of more than 20 leading zeros, which libde265 refuses.
    mutating func unsignedExpGolomb() -> Int? {
        var leadingZeros = 0
        while bits(1) == 0 {
            leadingZeros += 1
            if leadingZeros > 20 { return nil }
        }
        return (1 << leadingZeros) - 1 + bits(leadingZeros)
    }
}
