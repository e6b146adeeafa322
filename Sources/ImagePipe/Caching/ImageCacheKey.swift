import Foundation
import PipelineCore

/// The cache key formats, exactly SDWebImage's, so keys (and disk file names) are predictable:
/// the base key is the URL (through the key filter), then a thumbnail suffix, then the transformer's
/// key, each inserted before the path extension.
public enum ImageCacheKey {
    /// The base key for a URL: the filter's answer, else the absolute string.
    public static func key(for url: URL, filter: ImageCacheKeyFilter? = nil) -> String {
        filter?.key(url) ?? url.absoluteString
    }

    /// `Thumbnail({W,H},P)` with six decimals, as SDWebImage's `SDThumbnailedKeyForKey` writes it.
    /// Inserted into a URL's path, the braces are percent-encoded (`%7B…%7D`), as they are upstream.
    static func thumbnailSuffix(pixelSize: ImageSize, preserveAspectRatio: Bool) -> String {
        "Thumbnail({\(sixDecimals(pixelSize.width)),\(sixDecimals(pixelSize.height))},\(preserveAspectRatio ? 1 : 0))"
    }

    /// `%f` of a whole number. Written out rather than through `String(format:)`, whose first use
    /// costs a one-image command a noticeable part of its start-up; beyond 2^53 a `Double` rounds,
    /// and `%f` writes what it rounded to.
    private static func sixDecimals(_ value: Int) -> String {
        value.magnitude < 1 << 53 ? "\(value).000000" : String(format: "%f", Double(value))
    }

    /// `key` with the thumbnail suffix inserted.
    public static func thumbnailed(_ key: String, pixelSize: ImageSize, preserveAspectRatio: Bool) -> String {
        transformed(key, transformerKey: thumbnailSuffix(pixelSize: pixelSize, preserveAspectRatio: preserveAspectRatio))
    }

    /// SDWebImage's `SDTransformedKeyForKey`: `-<suffix>` goes before the path extension when the key
    /// has one (`a/b.png` → `a/b-T.png`, a URL's query and fragment kept), else at the end.
    public static func transformed(_ key: String, transformerKey: String) -> String {
        let url = URL(string: key)
        let ext = url?.pathExtension ?? PathText.pathExtension(key)
        guard !ext.isEmpty else { return key + "-" + transformerKey }
        if let url, !url.isFileURL, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            let stem = PathText.deletingPathExtension(parts.path)
            parts.path = stem + "-" + transformerKey + "." + ext
            if let result = parts.url?.absoluteString ?? parts.string { return result }
        }
        // Plain strings and file URLs: cut the extension off the string itself. (NSString's path
        // methods, which SDWebImage uses here, would also fold `file:///` into `file:/`.)
        let stem = key.hasSuffix("." + ext) ? String(key.dropLast(ext.count + 1)) : PathText.deletingPathExtension(key)
        return stem + "-" + transformerKey + "." + ext
    }
}
