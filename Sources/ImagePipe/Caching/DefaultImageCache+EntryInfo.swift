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
/// - The entry's length, so a file cut short (a crash before the data reached the disk, a full
///   disk) is found out on read instead of being decoded leniently and served damaged: an entry
///   whose bytes do not match it, or that has none, is a miss and is removed.
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
        /// Bytes of the entry as written.
        var length: Int?

        var validators: CacheValidators? {
            let found = CacheValidators(etag: etag, lastModified: lastModified).sanitized
            return found.canRevalidate ? found : nil
        }
    }

    /// A message longer than this, read back from disk, is cut.
    static let maxStoredWarningLength = 1024

    /// The extended data for an entry of `length` bytes: the image's warnings and the source's
    /// validators, stored at `now`.
    static func extendedData(for image: Image?, length: Int, validators: CacheValidators?, now: Date) -> Data? {
        let clean = validators?.sanitized
        let warnings = image?.metadata.warnings.map { EntryInfo.Warning(kind: $0.kind.name, message: $0.message) }
        let info = EntryInfo(
            warnings: warnings?.isEmpty == false ? warnings : nil,
            etag: clean?.etag, lastModified: clean?.lastModified,
            expires: clean?.freshnessLifetime.map { now.addingTimeInterval($0).timeIntervalSince1970 },
            length: length)
        return try? JSONEncoder().encode(info)
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
