import Foundation

/// Decode warnings kept beside a disk entry (as its extended data), so a disk hit reports what
/// the first decode did. An entry of the original bytes would give them again when decoded, but a
/// transformed or thumbnail image is stored re-encoded, clean: without this, the second request
/// for a truncated file's thumbnail would be warning-free. A new write of the entry replaces the
/// file and with it the old warnings, so none go stale.
extension DefaultImageCache {
    private struct StoredWarning: Codable {
        var kind: String
        var message: String
    }

    private struct StoredWarnings: Codable {
        var warnings: [StoredWarning]
    }

    /// A message longer than this, read back from disk, is cut: the cache folder is not trusted to
    /// hold what this code wrote.
    static let maxStoredWarningLength = 1024

    /// The extended data for an image's warnings; nil when it has none.
    static func extendedData(forWarningsOf image: Image?) -> Data? {
        guard let warnings = image?.metadata.warnings, !warnings.isEmpty else { return nil }
        let stored = StoredWarnings(warnings: warnings.map { StoredWarning(kind: $0.kind.name, message: $0.message) })
        return try? JSONEncoder().encode(stored)
    }

    /// `image` with the warnings stored beside its entry added (those it does not already have).
    /// Extended data that is not ours is ignored.
    static func addingStoredWarnings(_ extendedData: Data?, to image: Image) -> Image {
        guard let extendedData, let stored = try? JSONDecoder().decode(StoredWarnings.self, from: extendedData) else { return image }
        var warnings = image.metadata.warnings
        for entry in stored.warnings.prefix(ImageDecodeWarning.maxPerImage) {
            let warning = ImageDecodeWarning(ImageDecodeWarning.Kind(name: String(entry.kind.prefix(64))),
                                             message: String(entry.message.prefix(maxStoredWarningLength)))
            if !warnings.contains(warning) { warnings.append(warning) }
        }
        return image.with { $0.warnings = Array(warnings.prefix(ImageDecodeWarning.maxPerImage)) }
    }
}
