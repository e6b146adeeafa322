/// How much of a file's beginning a decode of its first frame reads: what a coder answers from a
/// prefix of the file (`ImageCoder.firstFrameExtent(of:)`), so a loader asked for the first frame
/// only can stop reading where that frame ends.
public enum ImageFirstFrameExtent: Hashable, Sendable {
    /// Everything the first frame's decode reads lies in the file's first `count` bytes.
    case endsAt(Int)
    /// The prefix ends before the coder can tell: read more and ask again.
    case needsMoreBytes
    /// The coder cannot tell (or the bytes look damaged): read the whole file, so a decode sees
    /// exactly what it would see without the shortcut, errors included.
    case unknown
}
