import PipelineCore

/// `bg:`: alpha composited onto `background`, leaving an opaque image whatever the format.
struct FlattenTransformer: PixelTransformer {
    let background: ImageColor

    var key: String { "ImageServer.Flatten(\(background))" }

    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        guard buffer.format.hasAlpha else { return buffer }
        // Gray with a coloured background would lose the colour.
        let opaque: PixelFormat = buffer.format.isGray && !(background.red == background.green && background.green == background.blue) ? .rgb8 : buffer.format.withoutAlpha
        return buffer.converted(to: opaque, background: background)
    }
}
