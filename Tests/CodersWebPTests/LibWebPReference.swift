import CWebP
import Foundation
import PipelineCore

/// libwebp's own answers, used as reference pixels: `WebPDecodeRGB(A)` for stills and
/// `WebPAnimDecoder` (libwebp's compositor) for animations.
enum LibWebPReference {
    static func still(_ data: Data, format: PixelFormat) -> [UInt8]? {
        data.withUnsafeBytes { raw -> [UInt8]? in
            var width: Int32 = 0, height: Int32 = 0
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard
                let pixels = format == .rgba8
                    ? WebPDecodeRGBA(base, raw.count, &width, &height)
                    : WebPDecodeRGB(base, raw.count, &width, &height)
            else { return nil }
            defer { WebPFree(pixels) }
            return Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * format.bytesPerPixel))
        }
    }

    struct Animation {
        var frames: [[UInt8]]
        var loopCount: Int
        var width: Int
        var height: Int
    }

    static func animation(_ data: Data) -> Animation? {
        data.withUnsafeBytes { raw -> Animation? in
            var webpData = WebPData(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { return nil }
            options.color_mode = MODE_RGBA
            guard let decoder = WebPAnimDecoderNew(&webpData, &options) else { return nil }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { return nil }
            let count = Int(info.canvas_width) * Int(info.canvas_height) * 4
            var frames: [[UInt8]] = []
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var buffer: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else { return nil }
                frames.append(Array(UnsafeBufferPointer(start: buffer, count: count)))
            }
            return Animation(frames: frames, loopCount: Int(info.loop_count), width: Int(info.canvas_width), height: Int(info.canvas_height))
        }
    }
}

/// Byte equality through memcmp: the corpus has an 11158x2156 photo, too big to compare
/// element by element in a debug build.
func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 } }
}

/// Largest per-channel difference.
func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    guard a.count == b.count else { return .max }
    var worst = 0
    for i in a.indices { worst = max(worst, abs(Int(a[i]) - Int(b[i]))) }
    return worst
}
