import PipelineCore

/// The sequence parameter set NAL units libheif 1.15 hands libde265 for one coded item: the
/// units of every array of its `hvcC` box, then its data's units. libheif gives the data to the
/// decoder as one stream (the extents joined) of units each behind a 4-byte length, whatever
/// length size `hvcC` declares, and stops at a length running past the end. A unit is a sequence
/// parameter set when its own header says so (type 33) and is on layer 0: libde265 ignores the
/// array's declared type and skips the units of other layers.
enum HEVCSequenceParameterSetUnits {
    static let type = 33

    /// Each unit whole (its 2-byte header first), at most `HEVCBitReader.bytesRead` bytes of it.
    static func units(configuration: Range<Int>, data extents: [Range<Int>], of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var reader = ISOBMFFBytes(bytes, configuration)
        // 21 bytes of profile, level and format fields, then lengthSizeMinusOne and the array count.
        if reader.skip(22), let arrays = reader.u8() {
            arrays: for _ in 0..<arrays {
                guard reader.skip(1), let count = reader.u16() else { break }
                for _ in 0..<count {
                    guard let length = reader.u16(), reader.end - reader.position >= length else { break arrays }
                    let unit = bytes[reader.position..<reader.position + length]
                    if isSequenceParameterSet(unit) { units.append(unit.prefix(HEVCBitReader.bytesRead)) }
                    _ = reader.skip(length)
                }
            }
        }
        var data = JoinedExtents(bytes: bytes, extents: extents)
        while let header = data.read(4), header.count == 4 {
            let length = header.reduce(0) { $0 << 8 | Int($1) }
            guard length <= data.remaining else { break }
            let unit = data.read(min(length, HEVCBitReader.bytesRead)) ?? []
            if isSequenceParameterSet(unit) { units.append(unit) }
            data.skip(length - unit.count)
        }
        return units
    }

    /// nal_unit_type (6 bits after the forbidden bit) 33 and nuh_layer_id (the next 6 bits) 0.
    static func isSequenceParameterSet(_ unit: ArraySlice<UInt8>) -> Bool {
        guard unit.count >= 2 else { return false }
        let first = unit[unit.startIndex], second = unit[unit.startIndex + 1]
        return Int(first >> 1) & 0x3F == type && (first & 1) == 0 && second >> 3 == 0
    }

    /// An item's extents read front to back as one run of bytes, as libheif joins them.
    private struct JoinedExtents {
        let bytes: [UInt8]
        private let extents: [Range<Int>]
        private var extent = 0, offset = 0
        private(set) var remaining: Int

        init(bytes: [UInt8], extents: [Range<Int>]) {
            self.bytes = bytes
            self.extents = extents.map { $0.clamped(to: 0..<bytes.count) }.filter { !$0.isEmpty }
            remaining = self.extents.reduce(0) { $0 + $1.count }
        }

        /// The next `count` bytes, or fewer at the end; nil when none are left.
        mutating func read(_ count: Int) -> ArraySlice<UInt8>? {
            guard remaining > 0 else { return nil }
            let start = extents[extent].lowerBound + offset
            if extents[extent].upperBound - start >= count {
                skip(count)
                return bytes[start..<start + count]
            }
            var result: [UInt8] = []
            while result.count < count, extent < extents.count {
                let from = extents[extent].lowerBound + offset
                let taken = min(count - result.count, extents[extent].upperBound - from)
                result += bytes[from..<from + taken]
                skip(taken)
            }
            return result[...]
        }

        mutating func skip(_ count: Int) {
            var left = min(count, remaining)
            remaining -= left
            while left > 0 {
                let step = min(left, extents[extent].count - offset)
                offset += step
                left -= step
                if offset == extents[extent].count {
                    extent += 1
                    offset = 0
                }
            }
        }
    }
}
