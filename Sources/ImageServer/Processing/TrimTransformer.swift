import ImagePipe
import PipelineCore

/// `t:`: cuts the borders whose pixels differ from the background by no more than `threshold` in
/// every channel, as libvips' `find_trim` does for imgproxy: the background is `color` or the
/// top-left pixel, and transparency is judged over magenta (so `ff00ff` trims transparent borders).
/// `equalHorizontal`/`equalVertical` cut both opposite sides by the smaller amount. An image that is
/// all background is left as it is.
struct TrimTransformer: PixelTransformer {
    let trim: ProcessingOptions.Trim

    var key: String { "ImageServer.Trim(\(trim.threshold),\(trim.color.map { "\($0)" } ?? "auto"),\(trim.equalHorizontal),\(trim.equalVertical))" }

    static let magenta = ImageColor(red: 255, green: 0, blue: 255)

    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        guard let box = try contentBox(of: buffer), box.size != buffer.size else { return buffer }
        return try CroppingTransformer(rect: box).transform(buffer)
    }

    /// The smallest rectangle holding every pixel that is not background; nil when there is none.
    func contentBox(of buffer: PixelBuffer) throws -> ImageRect? {
        let rgb = buffer.converted(to: .rgb8, background: Self.magenta)
        let background = trim.color ?? rgb.color(x: 0, y: 0)
        let reference = [Int(background.red), Int(background.green), Int(background.blue)]
        let threshold = trim.threshold
        let (width, height) = (buffer.width, buffer.height)
        var (left, right, top, bottom) = (width, -1, height, -1)
        try rgb.bytes.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                if y & 63 == 0 { try DecodeCancellation.checkCurrent() }
                let row = y * width * 3
                for x in 0..<width {
                    let offset = row + x * 3
                    let differs =
                        Double(abs(Int(pixels[offset]) - reference[0])) > threshold || Double(abs(Int(pixels[offset + 1]) - reference[1])) > threshold
                        || Double(abs(Int(pixels[offset + 2]) - reference[2])) > threshold
                    if differs {
                        left = min(left, x)
                        right = max(right, x)
                        top = min(top, y)
                        bottom = max(bottom, y)
                    }
                }
            }
        }
        guard right >= left, bottom >= top else { return nil }
        if trim.equalHorizontal {
            let cut = min(left, width - 1 - right)
            (left, right) = (cut, width - 1 - cut)
        }
        if trim.equalVertical {
            let cut = min(top, height - 1 - bottom)
            (top, bottom) = (cut, height - 1 - cut)
        }
        return ImageRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }
}
