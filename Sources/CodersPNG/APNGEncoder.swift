import Foundation
import PipelineCore

/// Animated PNG: the first frame whole as the IDAT image (so viewers without APNG show it), each
/// later one as fdAT holding just the rectangle that changed since the frame before (blend source,
/// dispose none: the rectangle replaces what is there, so every frame shows exactly its pixels);
/// acTL carries the loop count, each fcTL the frame's delay in milliseconds. Frames are asked for
/// one at a time, so an animation streams through holding two frames and the file being built.
///
/// All frames share one pixel format (PNG has one IHDR): the animation's, with the image's colour
/// chunks and EXIF/XMP as the still encoder writes them.
enum APNGEncoder {
    /// `metadata`: the (upright) image whose colour description, EXIF and XMP are written.
    static func encode(
        frameCount: Int, loopCount: Int, format: PixelFormat, metadata: Image, options: ImageEncodeOptions,
        frame: (Int) throws -> ImageFrame
    ) throws -> Data {
        guard frameCount > 0 else { throw ImagePipeError.encodingFailed(reason: "no frames to encode") }
        guard let frames = UInt32(exactly: frameCount), let loops = UInt32(exactly: min(max(loopCount, 0), Int(Int32.max))) else {
            throw ImagePipeError.encodingFailed(reason: "PNG: \(frameCount) frames are more than APNG holds")
        }
        let profile = metadata.metadata.colorProfile
        var format = format
        if profile?.iccData(describing: format) != nil, !format.isGray { format = format.hasAlpha ? .rgba8 : .rgb8 }
        let level = min(max(options.extras[.pngCompressionLevel] ?? PNGEncoder.defaultCompressionLevel, 0), 9)
        var size: ImageSize?
        var out: [UInt8] = []
        var sequence: UInt32 = 0
        var previous: PixelBuffer?
        for index in 0..<frameCount {
            let current = try frame(index)
            var pixels = current.buffer
            if size == nil {
                size = options.outputSize(for: pixels.size)
            }
            guard let size else { break }
            if pixels.size != size { pixels = pixels.resampled(to: size) }
            pixels = pixels.converted(to: format)
            // After frame 0, only the rectangle that changed is stored; it replaces what is there.
            let area = previous.map { Self.changedArea(from: $0, to: pixels) } ?? Area(x: 0, y: 0, width: size.width, height: size.height)
            previous = pixels
            let stored = Self.crop(pixels, to: area)
            let png = try stored.withUnsafeBufferPointer {
                try PNGEncoder.write($0, width: area.width, height: area.height, channels: format.channelCount, level: level)
            }
            if index == 0 {
                // Signature and IHDR as the still writer framed them, then the animation control.
                out.append(contentsOf: png.prefix(PNGChunkInsertion.afterIHDR))
                var actl: [UInt8] = []
                PNGChunk.appendBigEndian(frames, to: &actl)
                PNGChunk.appendBigEndian(loops, to: &actl)
                PNGChunk.append(type: PNGChunk.acTL, payload: actl, to: &out)
            }
            PNGChunk.append(type: PNGChunk.fcTL, payload: control(sequence: sequence, area: area, duration: current.duration), to: &out)
            sequence += 1
            PNGChunk.walk(png) { (chunk: PNGChunk) -> Bool in
                guard chunk.type == PNGChunk.IDAT else { return chunk.type != PNGChunk.IEND }
                if index == 0 {
                    out.append(contentsOf: png[chunk.start..<chunk.end])
                } else {
                    var number: [UInt8] = []
                    PNGChunk.appendBigEndian(sequence, to: &number)
                    let pieces: [Data] = [Data(number), png[chunk.payload]]
                    PNGChunk.append(type: PNGChunk.fdAT, pieces: pieces, to: &out)
                    sequence += 1
                }
                return true
            }
        }
        PNGChunk.append(type: PNGChunk.IEND, payload: [UInt8](), to: &out)
        let chunks = PNGColorChunk.chunks(for: profile, pixels: format) + PNGMetadataChunks.chunks(for: metadata)
        let data = Data(out)
        return PNGChunkInsertion.inserting(chunks, in: data) ?? data
    }

    struct Area: Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// The smallest rectangle holding every pixel of `next` that differs from `last` (both the
    /// same size and format); a 1×1 one at the origin when nothing changed (a frame has pixels).
    static func changedArea(from last: PixelBuffer, to next: PixelBuffer) -> Area {
        let bpp = next.format.bytesPerPixel, rowBytes = next.width * bpp
        var (top, bottom, left, right) = (Int.max, -1, Int.max, -1)
        last.bytes.withUnsafeBufferPointer { a in
            next.bytes.withUnsafeBufferPointer { b in
                for y in 0..<next.height {
                    let start = y * rowBytes
                    guard memcmp(a.baseAddress! + start, b.baseAddress! + start, rowBytes) != 0 else { continue }
                    (top, bottom) = (min(top, y), y)
                    var x = 0
                    while x < left, memcmp(a.baseAddress! + start + x * bpp, b.baseAddress! + start + x * bpp, bpp) == 0 { x += 1 }
                    left = min(left, x)
                    x = next.width - 1
                    while x > right, memcmp(a.baseAddress! + start + x * bpp, b.baseAddress! + start + x * bpp, bpp) == 0 { x -= 1 }
                    right = max(right, x)
                }
            }
        }
        guard bottom >= 0 else { return Area(x: 0, y: 0, width: 1, height: 1) }
        return Area(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }

    static func crop(_ pixels: PixelBuffer, to area: Area) -> [UInt8] {
        guard area.width != pixels.width || area.height != pixels.height else { return pixels.bytes }
        let bpp = pixels.format.bytesPerPixel, rowBytes = area.width * bpp
        var out: [UInt8] = []
        out.reserveCapacity(rowBytes * area.height)
        for y in area.y..<area.y + area.height {
            let start = (y * pixels.width + area.x) * bpp
            out.append(contentsOf: pixels.bytes[start..<start + rowBytes])
        }
        return out
    }

    /// An fcTL for a frame stored in `area`, shown `duration` seconds: milliseconds when they fit
    /// in 16 bits, else hundredths, else seconds (at most 65535). Dispose none, blend source.
    static func control(sequence: UInt32, area: Area, duration: Double) -> [UInt8] {
        let (numerator, denominator) = delay(duration)
        var payload: [UInt8] = []
        for value in [sequence, UInt32(area.width), UInt32(area.height), UInt32(area.x), UInt32(area.y)] { PNGChunk.appendBigEndian(value, to: &payload) }
        payload += [UInt8(numerator >> 8), UInt8(numerator & 0xFF), UInt8(denominator >> 8), UInt8(denominator & 0xFF)]
        payload += [APNGFrameControl.Dispose.none.rawValue, APNGFrameControl.Blend.source.rawValue]
        return payload
    }

    static func delay(_ duration: Double) -> (numerator: Int, denominator: Int) {
        let seconds = duration.isFinite ? max(duration, 0) : 0
        for denominator in [1000, 100, 1] {
            let numerator = (seconds * Double(denominator)).rounded()
            if numerator <= 65535 { return (Int(numerator), denominator) }
        }
        return (65535, 1)
    }
}
