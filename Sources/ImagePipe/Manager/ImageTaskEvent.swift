/// What an `ImageTask` reports, in order: progress and partial images while it runs, then one
/// `completed` or `failed` (with `.refreshCached`, a first `completed` with the cached image may
/// come before the fresh one).
import PipelineCore

public enum ImageTaskEvent: Sendable {
    case progress(ImageLoadProgress)
    /// A partial image of a progressive load (`metadata.isIncremental`), never cached.
    case partialImage(Image)
    case completed(ImageResult)
    case failed(ImagePipeError)
}
