/// The unit cache-aligned memory is aligned and sized to: 128 bytes, the pair of 64-byte lines
/// adjacent-line prefetchers fetch together, so that no other allocation shares its lines and
/// writes to it never slow unrelated memory.
@usableFromInline let cacheAlignment = 128

extension Int {
    /// This many bytes rounded up to whole `cacheAlignment` units.
    @inlinable
    var roundedUpToCacheAlignment: Int { (self + cacheAlignment - 1) / cacheAlignment * cacheAlignment }
}

extension UnsafeMutableRawPointer {
    /// `byteCount` bytes (at least one) starting on a `cacheAlignment` boundary and rounded up to
    /// whole units.
    @usableFromInline
    static func allocateCacheAligned(byteCount: Int) -> UnsafeMutableRawPointer {
        allocate(byteCount: max(byteCount, 1).roundedUpToCacheAlignment, alignment: cacheAlignment)
    }
}

extension UnsafeMutablePointer where Pointee: ~Copyable {
    /// Room for `capacity` values, cache-aligned (see `allocateCacheAligned(byteCount:)`).
    @usableFromInline
    static func allocateCacheAligned(capacity: Int) -> UnsafeMutablePointer {
        UnsafeMutableRawPointer.allocateCacheAligned(byteCount: MemoryLayout<Pointee>.stride * capacity)
            .bindMemory(to: Pointee.self, capacity: capacity)
    }
}
