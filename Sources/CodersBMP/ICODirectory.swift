import Foundation
import PipelineCore

/// The entries of an ICO or CUR file, each a PNG or a DIB (a BMP without its file header, twice as
/// tall for its AND mask), ordered largest first: the first is what a still image shows.
struct ICODirectory {
    struct Entry {
        /// Position in the file's directory.
        let index: Int
        let range: Range<Int>
        let isPNG: Bool
        /// From the entry's own header (PNG IHDR or DIB), not the directory, which writers get wrong.
        let size: ImageSize
        let bitsPerPixel: Int
    }

    let entries: [Entry]
    /// Entries left out because they point outside the file or have no readable header.
    let skipped: Int

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The header's magic alone: a reserved zero, type 1 (icon) or 2 (cursor), some entries.
    static func isICO(_ data: Data) -> Bool {
        let bytes = LittleEndianBytes(data: data)
        guard bytes.u16(0) == 0, let type = bytes.u16(2), type == 1 || type == 2, let count = bytes.u16(4) else { return false }
        return count > 0
    }

    init(_ data: Data, options: ImageDecodeOptions) throws {
        let bytes = LittleEndianBytes(data: data)
        guard Self.isICO(data), let count = bytes.u16(4).map(Int.init), bytes.contains(6, count: count * 16) else {
            throw ImagePipeError.badImageData(reason: "ICO: the file ends inside its directory of entries")
        }
        try options.checkFrameLimit(count)
        var entries: [Entry] = []
        for index in 0..<count {
            let at = 6 + 16 * index
            guard let length = bytes.u32(at + 8).map(Int.init), let offset = bytes.u32(at + 12).map(Int.init),
                length >= 8, bytes.contains(offset, count: length)
            else { continue }
            let range = offset..<offset + length
            let start = data.startIndex + offset
            if data[start..<start + 8].elementsEqual(Self.pngSignature) {
                guard length >= 24 else { continue }
                let be = { (i: Int) in data[start + i..<start + i + 4].reduce(0) { $0 << 8 | Int($1) } }
                let size = ImageSize(width: be(16), height: be(20))
                guard size.width > 0, size.height > 0 else { continue }
                entries.append(Entry(index: index, range: range, isPNG: true, size: size, bitsPerPixel: 32))
            } else {
                let dib = LittleEndianBytes(data: data[start..<start + length])
                guard let width = dib.i32(4), let height = dib.i32(8), let bits = dib.u16(14), width > 0, height > 1 else { continue }
                let size = ImageSize(width: Int(width), height: Int(height) / 2)
                entries.append(Entry(index: index, range: range, isPNG: false, size: size, bitsPerPixel: Int(bits)))
            }
        }
        guard !entries.isEmpty else { throw ImagePipeError.badImageData(reason: "ICO: none of its \(count) entries is inside the file") }
        skipped = count - entries.count
        self.entries = entries.sorted {
            let (a, b) = ($0.size.pixelCount ?? 0, $1.size.pixelCount ?? 0)
            if a != b { return a > b }
            if $0.bitsPerPixel != $1.bitsPerPixel { return $0.bitsPerPixel > $1.bitsPerPixel }
            return $0.index < $1.index
        }
    }
}
