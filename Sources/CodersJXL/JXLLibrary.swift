import CJXL
import PipelineCore

/// libjxl, opened on first use rather than linked (CJXLShim): a program that never reads or
/// writes a JPEG XL does not load it, libhwy, brotli and the C++ runtime. Every path into libjxl
/// starts here.
enum JXLLibrary {
    /// Opens libjxl if it is not open yet. Throws `unsupportedFormat(.jxl)` naming the library and
    /// the reason when it cannot be opened (not installed, another version).
    static func open() throws(ImagePipeError) {
        if let reason = ip_jxl_open() {
            throw .unsupportedFormat(.jxl, reason: String(cString: reason))
        }
    }
}
