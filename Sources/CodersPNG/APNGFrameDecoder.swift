import Foundation
import PipelineCore

/// Decodes one APNG frame. Plain 8-bit frames go the quick way (`PNGFrameInflater`); the others,
/// and any the quick way does not take, through libpng, which knows no APNG: the frame is rewritten
/// as a PNG of its own (the file's IHDR with the frame's size, its PLTE and tRNS, the frame's data
/// as one IDAT, IEND) and read like any PNG. Only the compressed data is copied; the chunks were
/// checked when the index was read.
struct APNGFrameDecoder: Sendable {
    let data: Data
    let index: APNGIndex
    let options: ImageDecodeOptions

    /// The frame's own pixels (its rectangle, not the canvas), in the format libpng hands out.
    func pixels(of frame: Int, checkpoint: DecodeCheckpoint) throws -> PixelBuffer {
        try checkpoint.check()
        if let pixels = inflated(index.frames[frame]) { return pixels }
        let png = stream(for: index.frames[frame])
        return try png.withUnsafeBytes { bytes in
            let reader = try PNGReader(bytes, maxChunkBytes: PNGDecoder.maxChunkBytes(options))
            let layout = try reader.readHeader()
            let (pixels, rowsRead) = try PNGDecoder.readFull(reader, layout: layout, checkpoint: checkpoint)
            guard rowsRead == nil, try reader.finish() else {
                throw ImagePipeError.badImageData(reason: "PNG: frame \(frame) has too little image data")
            }
            return pixels
        }
    }

    /// The frame by `PNGFrameInflater`, when it is a plain one with exactly right data.
    private func inflated(_ frame: APNGIndex.Frame) -> PixelBuffer? {
        let (width, height) = (frame.control.width, frame.control.height)
        let decode = { (compressed: UnsafeRawBufferPointer) in
            PNGFrameInflater.pixels(width: width, height: height, header: index.header, hasTRNS: index.hasTRNS, compressed: compressed)
        }
        if frame.data.count == 1 { return data[frame.data[0]].withUnsafeBytes(decode) }
        var joined: [UInt8] = []
        joined.reserveCapacity(frame.data.reduce(0) { $0 + $1.count })
        for piece in frame.data { joined.append(contentsOf: data[piece]) }
        return joined.withUnsafeBytes(decode)
    }

    /// The PNG file for `frame`.
    func stream(for frame: APNGIndex.Frame) -> [UInt8] {
        let control = frame.control
        let dataBytes = frame.data.reduce(0) { $0 + $1.count }
        var out: [UInt8] = []
        out.reserveCapacity(8 + 25 + index.colorChunks.reduce(0) { $0 + $1.count } + dataBytes + 12 + 12)
        out.append(contentsOf: PNGHeader.signature)
        var ihdr: [UInt8] = []
        PNGChunk.appendBigEndian(UInt32(control.width), to: &ihdr)
        PNGChunk.appendBigEndian(UInt32(control.height), to: &ihdr)
        ihdr.append(contentsOf: index.header.fieldsAfterSize)
        PNGChunk.append(type: PNGChunk.IHDR, payload: ihdr, to: &out)
        for chunk in index.colorChunks { out.append(contentsOf: data[chunk]) }
        // One IDAT holding every piece.
        PNGChunk.append(type: PNGChunk.IDAT, pieces: frame.data.lazy.map { data[$0] }, to: &out)
        PNGChunk.append(type: PNGChunk.IEND, payload: [UInt8](), to: &out)
        return out
    }
}
