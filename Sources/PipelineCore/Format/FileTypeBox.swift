import Foundation

/// The `ftyp` box that opens an ISO base media file (HEIF, HEIC, AVIF): its major brand and the
/// compatible brands, read from the first bytes only. Plugins of such formats sniff with it.
package struct FileTypeBox: Sendable, Hashable {
    package let majorBrand: String
    package let compatibleBrands: [String]

    /// Nil unless `data` starts with a whole `ftyp` box (at most 64 bytes of it are read: real
    /// files list a handful of brands).
    package init?(_ data: some DataProtocol) {
        let head = Array(data.prefix(64))
        guard head.count >= 16, head[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let size = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard size >= 16, size % 4 == 0 else { return nil }
        let end = min(size, head.count)
        majorBrand = String(decoding: head[8..<12], as: UTF8.self)
        // Bytes 12-15 are the minor version; brands follow, four bytes each.
        compatibleBrands = stride(from: 16, to: end - 3, by: 4).map { String(decoding: head[$0..<$0 + 4], as: UTF8.self) }
    }

    /// The major brand and the compatible ones.
    package var brands: [String] { [majorBrand] + compatibleBrands }
}
