/// The limits one request is held to: the server's (`--max-src-resolution` and friends), or the
/// URL's security options' (`msr`, `msfs`, `maf`, `mafr`, `mrd`) where the server allows them,
/// as imgproxy's `security.Options` are. The defaults are the server's.
struct SecurityLimits: Hashable, Sendable {
    /// Pixels of a source's canvas; an animation's frames are summed against it unless
    /// `maxFramePixels` is set (imgproxy's `CheckDimensions`).
    var maxSourcePixels = 50_000_000
    /// Bytes of a source; 0 or less leaves only the server's transfer limit.
    var maxSourceBytes = 32 << 20
    /// Frames of an animation processed; 1 turns animations into their first frame.
    var maxFrames = 1
    /// Pixels of each frame's canvas of an animation, its frames then not summed; 0 for unset.
    var maxFramePixels = 0
    /// The longest side of the result: larger results are scaled down to fit, padding and
    /// extend included; 0 or less for no limit.
    var maxResultDimension = 0

    /// The limits that differ from the defaults, in one spelling, for cache keys: a result made
    /// under one URL's limits is not another's.
    var canonical: String? {
        let defaults = SecurityLimits()
        guard self != defaults else { return nil }
        return "limits:\(maxSourcePixels):\(maxSourceBytes):\(maxFrames):\(maxFramePixels):\(maxResultDimension)"
    }
}
