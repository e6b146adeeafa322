extension AnimatedImageProvider {
    /// How a provider's `frame(at:)` starts: an index outside the animation is refused with
    /// `frameOutOfRange`, and the checkpoint the frame's decode polls is made. Each frame is a
    /// decode of its own, so its time budget (`maxDecodeTime`) starts here.
    package func startFrameDecode(_ index: Int, options: ImageDecodeOptions) throws -> DecodeCheckpoint {
        guard index >= 0, index < frameCount else { throw ImagePipeError.frameOutOfRange(index: index, frameCount: frameCount) }
        return DecodeCheckpoint(options: options)
    }
}
