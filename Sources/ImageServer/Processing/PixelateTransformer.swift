import PipelineCore

/// `pix:`: blocks of `size` × `size` pixels, each the average of what it covers, counted from the
/// top-left corner (the last row and column of blocks may be narrower).
struct PixelateTransformer: PixelTransformer {
    let size: Int

    var key: String { "ImageServer.Pixelate(\(size))" }

    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let channels = buffer.format.bytesPerPixel
        let (width, height) = (buffer.width, buffer.height)
        let block = max(1, min(size, max(width, height)))
        var out = buffer.bytes
        var sums = [Int](repeating: 0, count: channels)
        try out.withUnsafeMutableBufferPointer { pixels in
            var top = 0
            while top < height {
                try DecodeCancellation.checkCurrent()
                let bottom = min(top + block, height)
                var left = 0
                while left < width {
                    let right = min(left + block, width)
                    for channel in 0..<channels { sums[channel] = 0 }
                    for y in top..<bottom {
                        for x in left..<right {
                            let offset = (y * width + x) * channels
                            for channel in 0..<channels { sums[channel] += Int(pixels[offset + channel]) }
                        }
                    }
                    let count = (bottom - top) * (right - left)
                    for y in top..<bottom {
                        for x in left..<right {
                            let offset = (y * width + x) * channels
                            for channel in 0..<channels { pixels[offset + channel] = UInt8((sums[channel] + count / 2) / count) }
                        }
                    }
                    left = right
                }
                top = bottom
            }
        }
        return try PixelBuffer(width: width, height: height, format: buffer.format, bytes: out)
    }
}
