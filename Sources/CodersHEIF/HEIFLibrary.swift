import CHEIF
import PipelineCore

/// libheif, opened on first use rather than linked (CHEIFShim), with `heif_init` run once: a
/// program that never reads a HEIF does not load it and its HEVC and AV1 codecs. Every path into
/// libheif starts here.
enum HEIFLibrary {
    /// Opens libheif if it is not open yet. Throws `unsupportedFormat(.heic)` naming the library
    /// and the reason when it cannot be opened (not installed, too old).
    static func open() throws(ImagePipeError) {
        if let reason = ip_heif_open() {
            throw .unsupportedFormat(.heic, reason: String(cString: reason))
        }
    }
}
