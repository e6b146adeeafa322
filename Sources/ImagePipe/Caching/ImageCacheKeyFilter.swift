import Foundation
import PipelineCore

/// Maps a URL to the key it is cached under, e.g. to drop a signature from signed URLs so every
/// signature shares one entry. Nil means "use the URL's absolute string".
public struct ImageCacheKeyFilter: Sendable {
    public let key: @Sendable (URL) -> String?
    public init(_ key: @escaping @Sendable (URL) -> String?) { self.key = key }

    /// Drops the query string and fragment.
    public static let removingQuery = ImageCacheKeyFilter { url in
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        parts.query = nil
        parts.fragment = nil
        return parts.string
    }
}
