extension PixelBuffer {
    /// These pixels in `format`, fitted into `canvas` with their aspect kept (shrunk or enlarged)
    /// and centred on transparent black: how coders whose pages or entries differ in size (TIFF
    /// pages, icon entries) make frames of one canvas size. A buffer already of that size and
    /// format is returned as is.
    package func letterboxed(into canvas: ImageSize, format: PixelFormat) -> PixelBuffer {
        precondition(canvas.width > 0 && canvas.height > 0, "letterbox canvas \(canvas) has no pixels")
        var content = converted(to: format)
        if content.size == canvas { return content }
        let fitted = ImageSizeMath.scaledSize(content.size, toFit: canvas, preserveAspectRatio: true, allowUpscaling: true)
        if fitted != content.size { content = content.resampled(to: fitted) }
        if fitted == canvas { return content }
        let channels = format.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: canvas.width * canvas.height * channels)
        let left = (canvas.width - fitted.width) / 2, top = (canvas.height - fitted.height) / 2
        let rowBytes = fitted.width * channels
        content.bytes.withUnsafeBufferPointer { source in
            bytes.withUnsafeMutableBufferPointer { target in
                for y in 0..<fitted.height {
                    let from = y * rowBytes, to = ((top + y) * canvas.width + left) * channels
                    for i in 0..<rowBytes { target[to + i] = source[from + i] }
                }
            }
        }
        return PixelBuffer(unchecked: canvas.width, height: canvas.height, format: format, bytes: bytes)
    }
}
