import PipelineCore

/// The picture size HEVC sequence parameter sets declare (`pic_width_in_luma_samples`,
/// `pic_height_in_luma_samples`, ITU-T H.265 7.3.2.2): the size libde265 allocates each picture
/// at, whatever the item's `ispe` says.
enum HEVCPictureSize {
    static let spsType = 33

    /// The largest size declared by the SPS NAL units of an `hvcC` box's payload; nil when it
    /// holds none that can be read.
    static func largest(inConfiguration payload: Range<Int>, of bytes: [UInt8]) -> ImageSize? {
        var reader = ISOBMFFBytes(bytes, payload)
        // 21 bytes of profile, level and format fields, then lengthSizeMinusOne and the array count.
        guard reader.skip(22), let arrays = reader.u8() else { return nil }
        var sizes: [ImageSize] = []
        for _ in 0..<arrays {
            guard let header = reader.u8(), let count = reader.u16() else { break }
            for _ in 0..<count {
                guard let length = reader.u16(), reader.end - reader.position >= length else { return largest(sizes) }
                if header & 0x3F == spsType, let size = size(ofNAL: bytes[reader.position..<reader.position + length]) {
                    sizes.append(size)
                }
                _ = reader.skip(length)
            }
        }
        return largest(sizes)
    }

    /// The bytes of a NAL unit's length field, from an `hvcC` payload (1, 2 or 4).
    static func lengthFieldSize(inConfiguration payload: Range<Int>, of bytes: [UInt8]) -> Int? {
        var reader = ISOBMFFBytes(bytes, payload)
        guard reader.skip(21), let value = reader.u8() else { return nil }
        return value & 3 + 1
    }

    /// The largest size declared by SPS NAL units inside an item's data (length-prefixed NAL
    /// units, as HEIF stores them), where a stream may carry its parameter sets in band.
    static func largest(inItemData extents: [Range<Int>], of bytes: [UInt8], lengthFieldSize: Int) -> ImageSize? {
        var sizes: [ImageSize] = []
        for extent in extents {
            var reader = ISOBMFFBytes(bytes, extent)
            while let length = reader.uint(lengthFieldSize), length > 0, reader.end - reader.position >= 2 {
                let end = min(reader.position + length, reader.end)
                if (Int(bytes[reader.position]) >> 1) & 0x3F == spsType, let size = size(ofNAL: bytes[reader.position..<end]) {
                    sizes.append(size)
                }
                guard reader.skip(end - reader.position) else { break }
            }
        }
        return largest(sizes)
    }

    private static func largest(_ sizes: [ImageSize]) -> ImageSize? {
        sizes.max { ($0.pixelCount ?? .max) < ($1.pixelCount ?? .max) }
    }

    /// The picture size of one SPS NAL unit (its 2-byte header included).
    static func size(ofNAL nal: ArraySlice<UInt8>) -> ImageSize? {
        var bits = RBSPBits(nal.dropFirst(2))
        guard bits.skip(4), let maxSubLayersMinus1 = bits.read(3), bits.skip(1) else { return nil }
        // profile_tier_level: the general profile and level (96 bits), then the sub-layers'.
        guard bits.skip(96) else { return nil }
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let profile = bits.read(1), let level = bits.read(1) else { return nil }
            profilePresent.append(profile == 1)
            levelPresent.append(level == 1)
        }
        if maxSubLayersMinus1 > 0, !bits.skip(2 * (8 - maxSubLayersMinus1)) { return nil }
        for layer in 0..<maxSubLayersMinus1 {
            if profilePresent[layer], !bits.skip(88) { return nil }
            if levelPresent[layer], !bits.skip(8) { return nil }
        }
        guard bits.exponentialGolomb() != nil, let chromaFormat = bits.exponentialGolomb() else { return nil }
        if chromaFormat == 3, !bits.skip(1) { return nil }
        guard let width = bits.exponentialGolomb(), let height = bits.exponentialGolomb() else { return nil }
        return ImageSize(width: width, height: height)
    }

    /// The bits of a NAL unit's payload with its emulation prevention bytes (the 3 of 00 00 03)
    /// removed, read most significant first.
    struct RBSPBits {
        private var bytes: [UInt8] = []
        private var position = 0

        init(_ nal: ArraySlice<UInt8>) {
            // Parameter sets are small: the fields read here lie in the first few dozen bytes.
            var zeros = 0
            for byte in nal.prefix(256) {
                if zeros >= 2, byte == 3 {
                    zeros = 0
                    continue
                }
                zeros = byte == 0 ? zeros + 1 : 0
                bytes.append(byte)
            }
        }

        mutating func read(_ count: Int) -> Int? {
            guard count >= 0, count <= 32, position + count <= bytes.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
                position += 1
            }
            return value
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, position + count <= bytes.count * 8 else { return false }
            position += count
            return true
        }

        /// ue(v), up to 32 bits of value.
        mutating func exponentialGolomb() -> Int? {
            var leadingZeros = 0
            while true {
                guard let bit = read(1) else { return nil }
                if bit == 1 { break }
                leadingZeros += 1
                guard leadingZeros <= 31 else { return nil }
            }
            guard let suffix = read(leadingZeros) else { return nil }
            return (1 << leadingZeros) - 1 + suffix
        }
    }
}
