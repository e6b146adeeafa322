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

    /// Whether the file holds metadata beyond the first EXIF and XMP chunks, which `WebPMetadata`
    /// reads: an unknown chunk, a second EXIF or XMP, bytes after the RIFF, or a chunk walk that
    /// does not end at the file's end (and so cannot tell).
    static func holdsUnreadMetadata(in data: Data) -> Bool {
        let start = data.startIndex
        guard data.count >= 12 else { return true }
        let riffEnd = start + 8 + data[start + 4..<start + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard riffEnd == data.endIndex || riffEnd + 1 == data.endIndex else { return true }
        var seen: Set<String> = []
        var offset = start + 12
        while offset + 8 <= data.endIndex {
            let found = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = data[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard size <= data.endIndex - offset - 8 else { return true }
            let known =
                imageDataChunks.contains(found) || ["VP8X", "ICCP"].contains(found)
                || (["EXIF", "XMP "].contains(found) && !seen.contains(found))
            guard known else { return true }
            if found == "ANMF", framesHoldUnknownChunks(data[offset + 8..<offset + 8 + size]) { return true }
            seen.insert(found)
            offset += 8 + size + (size & 1)
        }
        return offset < data.endIndex - 1
    }

    /// Whether an ANMF payload holds a chunk other than a frame's image data after its 16-byte
    /// header (position, size, duration, flags), or ends inside a chunk.
    private static func framesHoldUnknownChunks(_ frame: Data) -> Bool {
        var offset = frame.startIndex + 16
        while offset + 8 <= frame.endIndex {
            let found = String(decoding: frame[offset..<offset + 4], as: UTF8.self)
            let size = frame[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard size <= frame.endIndex - offset - 8, ["ALPH", "VP8 ", "VP8L"].contains(found) else { return true }
            offset += 8 + size + (size & 1)
        }
        return offset < frame.endIndex - 1
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
