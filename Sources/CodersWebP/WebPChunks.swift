import CWebP
import Foundation

/// The RIFF chunks of a WebP file beside its image data: ICCP, EXIF and XMP. Read by walking the
/// top-level chunks in place, so a still image needs no demuxer; written through libwebpmux, which
/// turns a simple file into an extended one and sets VP8X's flags.
enum WebPChunks {
    static let imageDataChunks: Set<String> = ["VP8 ", "VP8L", "ANIM", "ANMF", "ALPH"]

    /// Where the payload of the first `fourCC` chunk lies in `data`, if the file has a whole one.
    /// `beforeImageData`: stop at the first image data chunk (ICCP must precede it; EXIF and XMP
    /// follow it).
    static func range(of fourCC: String, in data: Data, beforeImageData: Bool) -> Range<Data.Index>? {
        let start = data.startIndex
        guard data.count >= 12 else { return nil }
        var offset = start + 12
        while offset + 8 <= data.endIndex {
            let found = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = data[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            let payload = offset + 8
            guard size <= data.endIndex - payload else { return nil }
            if found == fourCC { return payload..<payload + size }
            if beforeImageData, imageDataChunks.contains(found) { return nil }
            offset = payload + size + (size & 1)
        }
        return nil
    }

    /// `webP` with each (fourCC, payload) chunk set through libwebpmux; nil when the mux refuses.
    static func setting(_ chunks: [(fourCC: String, payload: Data)], in webP: Data) -> Data? {
        guard !chunks.isEmpty else { return webP }
        return webP.withUnsafeBytes { file -> Data? in
            var source = WebPData(bytes: file.bindMemory(to: UInt8.self).baseAddress, size: file.count)
            guard let mux = WebPMuxCreate(&source, 0) else { return nil }
            defer { WebPMuxDelete(mux) }
            for chunk in chunks {
                // copy_data 1: the mux keeps its own copy, so the payload need not outlive this call.
                let status = chunk.payload.withUnsafeBytes { payload in
                    var data = WebPData(bytes: payload.bindMemory(to: UInt8.self).baseAddress, size: payload.count)
                    return WebPMuxSetChunk(mux, chunk.fourCC, &data, 1)
                }
                guard status == WEBP_MUX_OK else { return nil }
            }
            var output = WebPData()
            defer { WebPDataClear(&output) }
            guard WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes else { return nil }
            return Data(bytes: bytes, count: output.size)
        }
    }
}
