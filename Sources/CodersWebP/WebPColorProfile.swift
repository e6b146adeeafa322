import CWebP
import Foundation
import PipelineCore

/// The ICC profile of an extended (VP8X) WebP file: its ICCP chunk, which the container
/// specification puts right after VP8X. Read by walking the RIFF chunks in place, so a still
/// image needs no demuxer; the walk ends at the first image data chunk. Written through the mux.
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

extension WebPColorProfile {
    /// `webP` with an ICCP chunk holding `profile`, through libwebpmux (which turns a simple file
    /// into an extended one and sets VP8X's ICC flag); nil when the mux refuses.
    static func embedding(_ profile: Data, in webP: Data) -> Data? {
        webP.withUnsafeBytes { file in
            profile.withUnsafeBytes { icc -> Data? in
                var source = WebPData(bytes: file.bindMemory(to: UInt8.self).baseAddress, size: file.count)
                guard let mux = WebPMuxCreate(&source, 0) else { return nil }
                defer { WebPMuxDelete(mux) }
                var chunk = WebPData(bytes: icc.bindMemory(to: UInt8.self).baseAddress, size: icc.count)
                guard WebPMuxSetChunk(mux, "ICCP", &chunk, 1) == WEBP_MUX_OK else { return nil }
                var output = WebPData()
                defer { WebPDataClear(&output) }
                guard WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes else { return nil }
                return Data(bytes: bytes, count: output.size)
            }
        }
    }
}
