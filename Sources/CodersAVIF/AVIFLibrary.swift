import CAVIF
import PipelineCore

/// libavif, opened on first use rather than linked (CAVIFShim): a program that never reads or
/// writes an AVIF does not load it and its AV1 codecs. Every path into libavif starts here.
enum AVIFLibrary {
    /// Opens libavif if it is not open yet. Throws `unsupportedFormat(.avif)` naming the library
    /// and the reason when it cannot be opened (not installed, too old).
    static func open() throws(ImagePipeError) {
        if let reason = ip_avif_open() {
            throw .unsupportedFormat(.avif, reason: String(cString: reason))
        }
    }
}
