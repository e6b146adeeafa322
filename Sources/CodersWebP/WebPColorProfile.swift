import Foundation
import PipelineCore

/// The ICC profile of an extended (VP8X) WebP file: its ICCP chunk, which the container
/// specification puts right after VP8X, before the image data.
enum WebPColorProfile {
    /// The profile within `options`' size limit, or nil and a warning; (nil, nil) without one.
    static func read(_ data: Data, options: ImageDecodeOptions) -> (ImageColorProfile?, ImageDecodeWarning?) {
        guard let range = WebPChunks.range(of: "ICCP", in: data, beforeImageData: true) else { return (nil, nil) }
        if let warning = options.colorProfileWarning(bytes: range.count, format: "WebP") { return (nil, warning) }
        return (.icc(Data(data[range])), nil)
    }
}
