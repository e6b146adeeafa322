import Foundation
import PipelineCore

extension DiskCache {
    /// SDWebImage's longest extension: a file name may have 255 bytes, 32 go to the hash, one to
    /// the dot.
    static let maxFileExtensionLength = 222

    /// The file name for `key`, SDWebImage's rule: lowercase hex MD5 of the key's UTF-8, plus `.` and
    /// the extension of the key's URL path when it has one (so a query string never leaks in).
    ///
    /// Only the hash and a single-component extension ever reach the file system, so no key can name
    /// a path outside the cache directory.
    public static func fileName(forKey key: String) -> String {
        let hash = MD5.hex(key)
        guard let ext = fileExtension(forKey: key) else { return hash }
        return hash + "." + ext
    }

    /// The extension part of `fileName(forKey:)`: the URL's path extension (percent-decoded, as
    /// `NSURL.pathExtension` gives it), else the key string's (`PathText`); `:` and NUL removed; nil when empty,
    /// longer than `maxFileExtensionLength` bytes, or not a plain name.
    static func fileExtension(forKey key: String) -> String? {
        var ext = URL(string: key)?.pathExtension ?? PathText.pathExtension(key)
        ext.unicodeScalars.removeAll { $0 == ":" || $0 == "\0" }
        return isPlainExtension(ext) ? ext : nil
    }

    /// Checked on bytes: a `/` followed by a combining mark is one Character that is not "/".
    private static func isPlainExtension(_ ext: String) -> Bool {
        let bytes = ext.utf8
        return !bytes.isEmpty && bytes.count <= maxFileExtensionLength && ext != "." && ext != ".."
            && !bytes.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ":") || $0 == 0 })
    }

    /// Whether `fileName(forKey:)` can give `name`: 32 lowercase hex digits, alone or with a dot and
    /// an extension it would keep. The cache reads, counts, trims and clears only files so named;
    /// anything else in its folder belongs to someone else.
    static func isEntryName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count >= 32, utf8.prefix(32).allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return false }
        guard utf8.count > 32 else { return true }
        let rest = name.utf8.dropFirst(32)
        guard rest.first == UInt8(ascii: ".") else { return false }
        return isPlainExtension(String(Substring(rest.dropFirst())))
    }
}
