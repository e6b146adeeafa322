import Foundation
import PipelineCore

/// What the image cache keeps beside a disk entry (as its extended data, JSON):
///
/// - Decode warnings, so a disk hit reports what the first decode did. An entry of the original
///   bytes would give them again when decoded, but a transformed or thumbnail image is stored
///   re-encoded, clean: without this, the second request for a truncated file's thumbnail would be
///   warning-free.
/// - The source's validators (`CacheValidators`) and, when it gave a freshness lifetime, the date
///   the entry expires by it, so `.refreshCached` revalidates after a restart or from another
///   process sharing the folder.
///
/// A new write of the entry replaces the file and with it the old facts, so none go stale. The
/// cache folder is not trusted to hold what this code wrote: what is read back is cut to size.
extension DefaultImageCache {
    struct EntryInfo: Codable, Equatable {
        struct Warning: Codable, Equatable {
            var kind: String
            var message: String
        }

        var warnings: [Warning]?
        var etag: String?
        var lastModified: String?
        /// Seconds since 1970 after which the source's freshness ran out.
        var expires: Double?

        var isEmpty: Bool { (warnings ?? []).isEmpty && etag == nil && lastModified == nil && expires == nil }

        var validators: CacheValidators? {
            let found = CacheValidators(etag: etag, lastModified: lastModified).sanitized
            return found.canRevalidate ? found : nil
        }
    }

    /// A message longer than this, read back from disk, is cut.
    static let maxStoredWarningLength = 1024

    /// The extended data for an image's warnings and the source's validators, stored at `now`;
    /// nil when there is nothing to keep.
    static func extendedData(for image: Image?, validators: CacheValidators?, now: Date) -> Data? {
        let clean = validators?.sanitized
        let info = EntryInfo(
            warnings: image?.metadata.warnings.map { EntryInfo.Warning(kind: $0.kind.name, message: $0.message) },
            etag: clean?.etag, lastModified: clean?.lastModified,
            expires: clean?.freshnessLifetime.map { now.addingTimeInterval($0).timeIntervalSince1970 })
        return info.isEmpty ? nil : try? JSONEncoder().encode(info)
    }

    /// The facts read back from extended data; nil for none, or for data that is not ours.
    static func entryInfo(_ extendedData: Data?) -> EntryInfo? {
        guard let extendedData else { return nil }
        return try? JSONDecoder().decode(EntryInfo.self, from: extendedData)
    }

    /// `image` with the warnings stored beside its entry added (those it does not already have).
    static func addingStoredWarnings(_ info: EntryInfo?, to image: Image) -> Image {
        guard let stored = info?.warnings, !stored.isEmpty else { return image }
        var warnings = image.metadata.warnings
        for entry in stored.prefix(ImageDecodeWarning.maxPerImage) {
            let warning = ImageDecodeWarning(
                ImageDecodeWarning.Kind(name: String(entry.kind.prefix(64))),
                message: String(entry.message.prefix(maxStoredWarningLength)))
            if !warnings.contains(warning) { warnings.append(warning) }
        }
        return image.with { $0.warnings = Array(warnings.prefix(ImageDecodeWarning.maxPerImage)) }
    }
}
