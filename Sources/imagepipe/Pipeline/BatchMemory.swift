import Foundation

/// glibc's allocator, set for a batch of images in one short process (`fetch`).
///
/// By default glibc maps every block over 128 KiB afresh and unmaps it when freed, raising that
/// threshold only as large blocks come and go, and hands the free top of each thread's heap back to
/// the kernel beyond twice the threshold. A batch allocates the same sizes image after image (a
/// file's bytes, libwebp's lossless canvas, pixel buffers) on several worker threads, each with its
/// own heap, so early images pay for fresh pages again and again: faulted and zeroed by the kernel,
/// a tenth of a lossless WebP thumbnail's CPU. Here both thresholds start where glibc's own
/// adjustment ends after one 32 MiB block (a 32 MiB mapping threshold, its ceiling, and twice that
/// kept free), so freed memory is reused from the first image on. A heap keeps no more than it
/// could keep by default; over the benchmark's sets peak memory rose by 0-4 MiB.
///
/// The server never calls this: its memory goes back to the system as before.
enum BatchMemory {
    static func reuseFreedMemory() {
        // mallopt is glibc's (musl has none); looked up so that other C libraries simply skip it.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        // M_MMAP_THRESHOLD and M_TRIM_THRESHOLD from <malloc.h>, which the Glibc module leaves out.
        let mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1
        _ = mallopt(mmapThreshold, 32 << 20)
        _ = mallopt(trimThreshold, 64 << 20)
    }
}
