extension UnsafeMutablePointer where Pointee: ~Copyable {
    /// Memory starting on a cache-line boundary and rounded up to whole lines (128 bytes, the
    /// pair of lines adjacent-line prefetchers fetch together), so no other allocation shares its
    /// lines and writes to it never slow unrelated memory.
    @usableFromInline
    static func allocateCacheAligned(capacity: Int) -> UnsafeMutablePointer {
        let line = 128
        let bytes = max(MemoryLayout<Pointee>.stride * capacity, 1)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: (bytes + line - 1) / line * line, alignment: line)
        return raw.bindMemory(to: Pointee.self, capacity: capacity)
    }
}
