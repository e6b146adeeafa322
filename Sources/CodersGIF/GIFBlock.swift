import PipelineCore

/// One image block of a GIF as the index scan found it: where its descriptor starts and what its
/// graphic control extension said. No pixels.
struct GIFBlock: Sendable {
    /// File offset of the block's `,` separator, where a frame decode re-enters the stream.
    var descriptorOffset: Int
    var left: Int
    var top: Int
    var width: Int
    var height: Int
    var disposal: Int
    var transparentIndex: Int?
    /// Centiseconds, or nil without a graphic control extension.
    var delay: Int?

    var isEmpty: Bool { width == 0 || height == 0 }

    func covers(_ screen: ImageSize) -> Bool {
        left == 0 && top == 0 && width >= screen.width && height >= screen.height
    }
}

/// A displayed frame: the blocks drawn for it (one, as giflib counts frames), shown for the last
/// block's delay.
struct GIFFrameSpan: Sendable {
    var firstBlock: Int
    var lastBlock: Int
    /// Seconds, after SDWebImage's ImageIO rule: a missing delay or one under 11 ms plays as 100 ms.
    var duration: Double
}
