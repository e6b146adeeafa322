import CSVGShim
import PipelineCore

/// librsvg, opened on first use rather than linked (CSVGShim): a program that never reads an SVG
/// does not load it, GLib, cairo and pango. Every path into librsvg starts here.
enum SVGLibrary {
    /// Opens librsvg if it is not open yet. Throws `unsupportedFormat(.svg)` naming the library
    /// and the reason when it cannot be opened (not installed).
    static func open() throws(ImagePipeError) {
        if let reason = ip_svg_open() {
            throw .unsupportedFormat(.svg, reason: String(cString: reason))
        }
    }
}
