import CGIF
import Foundation
import PipelineCore

/// Collects giflib's output. Ownership as for `GIFByteReader`: giflib holds an unretained pointer
/// in `UserData`; `GIFEncoder.encode` keeps the writer alive until the handle is closed.
private final class GIFByteWriter {
    var bytes: [UInt8] = []
}

/// Still and animated GIF from RGBA frames, one median-cut palette per frame (as a local colour
/// table), 1-bit transparency, NETSCAPE2.0 loop count and delays in centiseconds; the image's RGB
/// ICC profile and XMP packet, when it still carries them, in their application extensions.
///
/// Frames are asked for one at a time and written before the next is asked for: with a palette
/// per frame nothing needs a second pass, so an animation streams through holding one frame.
enum GIFEncoder {
    static func encode(_ frames: [ImageFrame], loopCount: Int?, metadata: ImageMetadata? = nil, options: ImageEncodeOptions) throws -> Data {
        try encode(frameCount: frames.count, loopCount: loopCount, metadata: metadata, options: options) { frames[$0] }
    }

    /// Writes `frameCount` frames, asking `frame` for each in order.
    static func encode(
        frameCount: Int, loopCount: Int?, metadata: ImageMetadata? = nil, options: ImageEncodeOptions,
        frame: (Int) throws -> ImageFrame
    ) throws -> Data {
        guard frameCount > 0 else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        let first = try frame(0)
        let size = options.outputSize(for: first.buffer.size)
        guard size.width <= 65535, size.height <= 65535 else {
            throw ImagePipeError.encodingFailed(reason: "GIF sides are at most 65535 pixels, not \(size)")
        }
        let writer = GIFByteWriter()
        var error: Int32 = 0
        guard
            let handle = EGifOpen(
                Unmanaged.passUnretained(writer).toOpaque(),
                { file, bytes, count in
                    guard let file, let bytes, count > 0, let context = file.pointee.UserData else { return 0 }
                    let writer = Unmanaged<GIFByteWriter>.fromOpaque(context).takeUnretainedValue()
                    writer.bytes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(count)))
                    return count
                }, &error)
        else { throw ImagePipeError.encodingFailed(reason: "giflib could not start (error \(error))") }
        var closed = false
        defer { if !closed { _ = EGifCloseFile(handle, &error) } }
        func check(_ status: Int32) throws {
            guard status == GIF_OK else { throw ImagePipeError.encodingFailed(reason: "giflib error \(handle.pointee.Error)") }
        }
        EGifSetGifVersion(handle, true)
        try check(EGifPutScreenDesc(handle, Int32(size.width), Int32(size.height), 8, 0, nil))
        if let loopCount {
            try check(EGifPutExtensionLeader(handle, APPLICATION_EXT_FUNC_CODE))
            var name = Array("NETSCAPE2.0".utf8)
            try check(EGifPutExtensionBlock(handle, 11, &name))
            let loops = min(max(loopCount, 0), 65535)
            var loop: [UInt8] = [1, UInt8(loops & 0xff), UInt8(loops >> 8)]
            try check(EGifPutExtensionBlock(handle, 3, &loop))
            try check(EGifPutExtensionTrailer(handle))
        }
        let profile = metadata?.colorProfile?.iccData(describing: .rgb8)
        for (identifier, subBlocks) in GIFMetadataWriter.extensions(profile: profile, xmp: metadata?.xmp) {
            try check(EGifPutExtensionLeader(handle, APPLICATION_EXT_FUNC_CODE))
            var name = identifier
            try check(EGifPutExtensionBlock(handle, 11, &name))
            for var block in subBlocks { try check(EGifPutExtensionBlock(handle, Int32(block.count), &block)) }
            try check(EGifPutExtensionTrailer(handle))
        }
        for index in 0..<frameCount {
            var duration = 0.0
            // The frame's pixels are dropped once quantized, before its indices are written.
            var paletted = try { () throws -> GIFPalettedFrame in
                let frame = index == 0 ? first : try frame(index)
                duration = frame.duration
                var buffer = frame.buffer
                if buffer.size != size { buffer = buffer.resampled(to: size) }
                return try GIFQuantizer.quantize(buffer)
            }()
            // Disposal 2 on transparent frames: each frame replaces the last instead of showing
            // through it, which is what a sequence of full RGBA frames means.
            var control = GraphicsControlBlock(
                DisposalMode: paletted.transparentIndex != nil ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT,
                UserInputFlag: false,
                DelayTime: Int32(min(max((duration * 100).rounded(), 0), 65535)),
                TransparentColor: Int32(paletted.transparentIndex ?? Int(NO_TRANSPARENT_COLOR)))
            var extensionBytes = [UInt8](repeating: 0, count: 4)
            let length = EGifGCBToExtension(&control, &extensionBytes)
            if loopCount != nil || paletted.transparentIndex != nil {
                try check(EGifPutExtension(handle, GRAPHICS_EXT_FUNC_CODE, Int32(length), &extensionBytes))
            }
            // giflib wants a power-of-two table of at least 2 entries.
            var tableSize = 2
            while tableSize < paletted.colorCount { tableSize *= 2 }
            var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: tableSize)
            for n in 0..<paletted.colorCount {
                colors[n] = GifColorType(Red: paletted.palette[n * 3], Green: paletted.palette[n * 3 + 1], Blue: paletted.palette[n * 3 + 2])
            }
            guard let map = GifMakeMapObject(Int32(tableSize), &colors) else {
                throw ImagePipeError.encodingFailed(reason: "giflib could not make a colour table")
            }
            defer { GifFreeMapObject(map) }
            try check(EGifPutImageDesc(handle, 0, 0, Int32(size.width), Int32(size.height), false, map))
            try paletted.indices.withUnsafeMutableBufferPointer { rows in
                for y in 0..<size.height {
                    if y & 63 == 0 { try DecodeCancellation.checkCurrent() }
                    try check(EGifPutLine(handle, rows.baseAddress! + y * size.width, Int32(size.width)))
                }
            }
        }
        closed = true
        guard EGifCloseFile(handle, &error) == GIF_OK else {
            throw ImagePipeError.encodingFailed(reason: "giflib could not finish the file (error \(error))")
        }
        return withExtendedLifetime(writer) { Data(writer.bytes) }
    }
}
