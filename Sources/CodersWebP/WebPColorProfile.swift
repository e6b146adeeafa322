import Foundation
import PipelineCore

/// The ICC profile of an extended (VP8X) WebP file: its ICCP chunk, which the container
/// specification puts right after VP8X. Read by walking the RIFF chunks in place, so a still
/// image needs no demuxer; the walk ends at the first image data chunk.
enum WebPColorProfile {
    /// The profile within `options`' size limit, or nil and a warning; (nil, nil) without one.
    static func read(_ data: Data, options: ImageDecodeOptions) -> (ImageColorProfile?, ImageDecodeWarning?) {
        guard let range = iccpRange(in: data) else { return (nil, nil) }
        if let warning = options.colorProfileWarning(bytes: range.count, format: "WebP") { return (nil, warning) }
        return (.icc(Data(data[range])), nil)
    }

    /// Where the ICCP payload lies in `data`, if the file has a whole one before its image data.
    static func iccpRange(in data: Data) -> Range<Data.Index>? {
        let start = data.startIndex
        guard data.count >= 12 else { return nil }
        var offset = start + 12
        while offset + 8 <= data.endIndex {
            let fourCC = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = data[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            let payload = offset + 8
            guard size <= data.endIndex - payload else { return nil }
            if fourCC == "ICCP" { return payload..<payload + size }
            if ["VP8 ", "VP8L", "ANIM", "ANMF", "ALPH"].contains(fourCC) { return nil }
            offset = payload + size + (size & 1)
        }
        return nil
    }
}
