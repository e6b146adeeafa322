import Foundation

extension DiskCache {
    /// SDWebImage's longest extension: a file name may have 255 bytes, 32 go to the hash, one to
    /// the dot.
    public static let maxFileExtensionLength = 222

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
    /// `NSURL.pathExtension` gives it), else the key string's; `:` and NUL removed; nil when empty,
    /// longer than `maxFileExtensionLength` bytes, or not a plain name.
    static func fileExtension(forKey key: String) -> String? {
        var ext = URL(string: key)?.pathExtension ?? (key as NSString).pathExtension
        ext.removeAll { $0 == ":" || $0 == "\0" }
        guard !ext.isEmpty, ext.utf8.count <= maxFileExtensionLength,
              !ext.contains("/"), ext != ".", ext != ".."
        else { return nil }
        return ext
    }
}
