import PipelineCore

/// The RGBA canvas an animation is composited on, in straight alpha as libwebp's own animation
/// decoder keeps it, so frames match `WebPAnimDecoder` output.
struct WebPCanvas: Sendable {
    let size: ImageSize
    private(set) var pixels: [UInt8]
    /// Nothing drawn since the canvas was zeroed, so clearing it again can be skipped.
    private var isClear = true

    init(size: ImageSize) throws {
        self.size = size
        pixels = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: size.width, height: size.height, format: .rgba8))
    }

    /// Dispose-to-background: WebP's background colour is only a hint (the spec lets players
    /// ignore it, and libwebp and SDWebImage do); the rectangle becomes transparent.
    mutating func clear(_ frame: WebPFrameInfo) {
        let rowBytes = frame.width * 4
        pixels.withUnsafeMutableBufferPointer { canvas in
            for row in 0..<frame.height {
                let start = ((frame.y + row) * size.width + frame.x) * 4
                canvas.baseAddress!.advanced(by: start).update(repeating: 0, count: rowBytes)
            }
        }
    }

    mutating func clearAll() {
        if !isClear { pixels.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        isClear = true
    }

    /// Decodes a frame that replaces its rectangle directly into the canvas.
    mutating func decodeReplacing(_ fragment: UnsafeRawBufferPointer, at frame: WebPFrameInfo) throws {
        isClear = false
        let stride = size.width * 4
        let start = (frame.y * size.width + frame.x) * 4
        // From the frame's first pixel to the end of its last row: what libwebp may write.
        let regionBytes = (frame.height - 1) * stride + frame.width * 4
        try pixels.withUnsafeMutableBufferPointer { canvas in
            try WebPPixelDecoder.decodeRGBA(
                fragment, into: canvas.baseAddress! + start, stride: stride,
                width: frame.width, height: frame.height, regionBytes: regionBytes)
        }
    }

    /// Draws an RGBA frame at its offset, alpha-blending it over the canvas or replacing what is there.
    mutating func draw(_ source: PixelBuffer, at frame: WebPFrameInfo, blending: Bool) {
        isClear = false
        precondition(source.format == .rgba8 && source.width == frame.width && source.height == frame.height)
        let rowBytes = frame.width * 4
        let blend = blending && frame.hasAlpha
        let canvasWidth = size.width
        source.bytes.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                for row in 0..<frame.height {
                    let s = row * rowBytes
                    let d = ((frame.y + row) * canvasWidth + frame.x) * 4
                    if !blend {
                        dst.baseAddress!.advanced(by: d).update(from: src.baseAddress!.advanced(by: s), count: rowBytes)
                        continue
                    }
                    var i = 0
                    while i < rowBytes {
                        Self.blend(src, s + i, into: dst, d + i)
                        i += 4
                    }
                }
            }
        }
    }

    /// "Source over" in straight alpha, with libwebp's fixed-point rounding so results agree
    /// with its animation decoder to the bit.
    @inline(__always)
    private static func blend(_ src: UnsafeBufferPointer<UInt8>, _ s: Int, into dst: UnsafeMutableBufferPointer<UInt8>, _ d: Int) {
        let srcA = UInt32(src[s + 3])
        if srcA == 255 {
            dst[d] = src[s]
            dst[d + 1] = src[s + 1]
            dst[d + 2] = src[s + 2]
            dst[d + 3] = 255
            return
        }
        if srcA == 0 { return }
        let dstA = UInt32(dst[d + 3])
        let dstFactorA = (dstA * (256 - srcA)) >> 8
        let blendA = srcA + dstFactorA
        let scale = (UInt32(1) << 24) / blendA
        for c in 0..<3 {
            let value = UInt32(src[s + c]) * srcA + UInt32(dst[d + c]) * dstFactorA
            dst[d + c] = UInt8(truncatingIfNeeded: (value * scale) >> 24)
        }
        dst[d + 3] = UInt8(truncatingIfNeeded: blendA)
    }
}
