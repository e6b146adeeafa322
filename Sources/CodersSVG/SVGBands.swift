import Foundation
import PipelineCore

/// How a large drawing is cut into bands of rows, each drawn by librsvg on its own, so that a
/// cancelled or overlong drawing stops between bands: librsvg 2.54 cannot be stopped inside one
/// drawing. A band redraws the whole document clipped to its rows, so bands pay only where pixels,
/// not elements, are the work: a 256-pixel logo drawn at 4000 x 4000 costs the same in 2-megapixel
/// bands, a 5,000-element document 1.15 times as much.
///
/// Filters, masks, group opacity and blend modes make librsvg draw an intermediate surface the
/// size of the whole canvas, which every band would redraw (7 to 9 times the time of one drawing),
/// so documents using them are drawn whole; the element and pixel limits bound those.
enum SVGBands {
    /// Drawings up to this many pixels are drawn whole: 4 megapixels (2048 x 2048).
    static let minimumPixels = 2048 * 2048
    /// About this many pixels a band: 2 megapixels.
    static let pixelsPerBand = 2 << 20

    /// The rows of each band for a drawing of `size` of `document`: `size.height` (one band)
    /// when it is drawn whole.
    static func rowsPerBand(for size: ImageSize, document: Data) -> Int {
        guard size.width > 0, size.height > 0 else { return max(size.height, 1) }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard overflow || pixels > minimumPixels, !drawsOverWholeCanvas(document) else { return size.height }
        return min(max(pixelsPerBand / size.width, 16), size.height)
    }

    /// Whether the document names a feature librsvg draws over the whole canvas: `filter`,
    /// `mask`, `mix-blend-mode`, `isolation`, or `opacity` other than `fill-`, `stroke-` and
    /// `stop-opacity` (which colour a shape and need no intermediate surface). Found in the
    /// bytes, attribute or CSS alike: a word in text or a comment counts too, which only costs
    /// the bands.
    static func drawsOverWholeCanvas(_ document: Data) -> Bool {
        let words = ["filter", "mask", "mix-blend-mode", "isolation"].map { Array($0.utf8) }
        let opacity = Array("opacity".utf8)
        return document.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let firstBytes: Set<UInt8> = [UInt8(ascii: "f"), UInt8(ascii: "m"), UInt8(ascii: "i"), UInt8(ascii: "o")]
            for index in bytes.indices where firstBytes.contains(bytes[index]) {
                let rest = UnsafeBufferPointer(rebasing: bytes[index...])
                if words.contains(where: { rest.starts(with: $0) }) { return true }
                if rest.starts(with: opacity), index == 0 || bytes[index - 1] != UInt8(ascii: "-") { return true }
            }
            return false
        }
    }
}
