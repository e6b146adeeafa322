import Foundation

@testable import CodersHEIF

/// Rewrites fields of the sequence parameter set in one item's `hvcC` box of a heif-enc file,
/// keeping every length (so no box or offset moves): a field is only replaced by a code of as
/// many bits. It reads the set with its own few lines, not with the parser under test.
enum HEVCParameterSetEditor {
    enum Edit {
        /// `pic_width_in_luma_samples` plus `delta`.
        case width(plus: Int)
        /// The six coding and transform block fields (log2_min_luma_coding_block_size_minus3 to
        /// max_transform_hierarchy_depth_intra) replaced by these values, as ue(v) codes.
        case blockSizes([Int])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `data` with the first SPS of the first coded item matching `item` (given its ID and the
    /// item table) edited.
    static func editing(_ data: Data, item: (Int, HEIFItemTable) -> Bool, _ edit: Edit) throws -> Data {
        var bytes = [UInt8](data)
        guard let table = HEIFItemTable(bytes),
            let configuration = table.items.first(where: { item($0.key, table) && $0.value.type == "hvc1" })?.value.hevcConfiguration
        else {
            throw Failure(description: "no such item with an hvcC box")
        }
        guard let nal = sequenceParameterSet(in: configuration, of: bytes) else { throw Failure(description: "no SPS in hvcC") }
        var rbsp = unescaped(Array(bytes[nal]))
        var reader = Reader(bytes: rbsp)
        reader.position = 16 + 4
        guard reader.bits(3) == 0 else { throw Failure(description: "the editor reads one sub-layer only") }
        reader.position += 1 + 96
        _ = reader.ue()
        guard reader.ue() != 3 else { throw Failure(description: "the editor reads no separate colour planes") }
        let widthStart = reader.position
        let width = reader.ue()
        let widthEnd = reader.position
        _ = reader.ue()
        guard reader.bits(1) == 0 else { throw Failure(description: "the editor reads no conformance window") }
        for _ in 0..<3 { _ = reader.ue() }
        reader.position += 1
        for _ in 0..<3 { _ = reader.ue() }
        let blocksStart = reader.position
        for _ in 0..<6 { _ = reader.ue() }
        let blocksEnd = reader.position
        switch edit {
        case .width(let delta):
            try replace(&rbsp, widthStart..<widthEnd, with: code(width + delta))
        case .blockSizes(let values):
            try replace(&rbsp, blocksStart..<blocksEnd, with: values.map(code).joined())
        }
        let escaped = self.escaped(rbsp)
        guard escaped.count == nal.count else { throw Failure(description: "the edit changed the unit's length") }
        bytes.replaceSubrange(nal, with: escaped)
        return Data(bytes)
    }

    /// The first SPS unit of an `hvcC` payload.
    static func sequenceParameterSet(in configuration: Range<Int>, of bytes: [UInt8]) -> Range<Int>? {
        var position = configuration.lowerBound + 22
        let arrays = Int(bytes[position])
        position += 1
        for _ in 0..<arrays {
            let count = Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
            position += 3
            for _ in 0..<count {
                let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
                position += 2
                if (bytes[position] >> 1) & 0x3F == 33 { return position..<position + length }
                position += length
            }
        }
        return nil
    }

    /// ue(v) as bits ("0" and "1").
    static func code(_ value: Int) -> String {
        let binary = String(value + 1, radix: 2)
        return String(repeating: "0", count: binary.count - 1) + binary
    }

    static func replace(_ rbsp: inout [UInt8], _ range: Range<Int>, with bits: String) throws {
        guard bits.count == range.count else {
            throw Failure(description: "a code of \(bits.count) bits cannot replace \(range.count)")
        }
        for (offset, bit) in bits.enumerated() {
            let position = range.lowerBound + offset
            let mask = UInt8(0x80) >> UInt8(position & 7)
            if bit == "1" { rbsp[position >> 3] |= mask } else { rbsp[position >> 3] &= ~mask }
        }
    }

    static func unescaped(_ nal: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], zeros = 0
        for byte in nal {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }

    static func escaped(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], zeros = 0
        for byte in rbsp {
            if zeros >= 2, byte <= 3 {
                out.append(3)
                zeros = 0
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }

    struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func bits(_ count: Int) -> Int {
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
                position += 1
            }
            return value
        }

        mutating func ue() -> Int {
            var zeros = 0
            while bits(1) == 0 { zeros += 1 }
            return (1 << zeros) - 1 + bits(zeros)
        }
    }
}
