/// Which cache levels to use (request side) or where an image was found (result side).
/// SDWebImage's `SDImageCacheType`. The raw value is the command line's `cacheType` JSON field.
public enum ImageCacheType: String, Sendable, Hashable, CaseIterable, Codable {
    case none
    case disk
    case memory
    case all

    package var includesMemory: Bool { self == .memory || self == .all }
    package var includesDisk: Bool { self == .disk || self == .all }

    package init(memory: Bool, disk: Bool) {
        switch (memory, disk) {
        case (true, true): self = .all
        case (true, false): self = .memory
        case (false, true): self = .disk
        case (false, false): self = .none
        }
    }

    /// This type without the disk level (SDWebImage strips disk from the original store when the
    /// image was just read from disk, so the same bytes are not written back).
    package var removingDisk: ImageCacheType { ImageCacheType(memory: includesMemory, disk: false) }

    func intersection(_ other: ImageCacheType) -> ImageCacheType {
        ImageCacheType(memory: includesMemory && other.includesMemory, disk: includesDisk && other.includesDisk)
    }
}
