extension Image {
    /// The format a cache stores this image in when it has no bytes of it (SDWebImage's choice): the
    /// format it was decoded from, else GIF for an animation, PNG when it has alpha, JPEG otherwise.
    package var storageFormat: ImageFormat {
        if format != .undefined { return format }
        if frameCount > 1 { return .gif }
        return hasAlpha ? .png : .jpeg
    }
}
