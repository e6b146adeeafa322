import CWebP
import PipelineCore

/// What the demuxer says about one animation frame, read once when the animation is opened so
/// that playing it needs no container parsing.
struct WebPFrameInfo: Sendable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    /// Seconds, after SDWebImage's WebP rule (10 ms or less plays as 100 ms).
    var duration: Double
    var disposesToBackground: Bool
    var blends: Bool
    var hasAlpha: Bool

    init(_ iterator: WebPIterator, canvas: ImageSize) throws {
        x = Int(iterator.x_offset)
        y = Int(iterator.y_offset)
        width = Int(iterator.width)
        height = Int(iterator.height)
        // The demuxer validates this already; checked again because the canvas code indexes with it.
        guard x >= 0, y >= 0, width > 0, height > 0, x <= canvas.width - width, y <= canvas.height - height else {
            throw ImagePipeError.badImageData(reason: "WebP frame \(width)x\(height)+\(x)+\(y) lies outside the \(canvas) canvas")
        }
        let milliseconds = Int(iterator.duration)
        duration = AnimationFrameDuration.clamped(Double(milliseconds) / 1000)
        disposesToBackground = iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND
        blends = iterator.blend_method == WEBP_MUX_BLEND
        hasAlpha = iterator.has_alpha != 0
    }

    func covers(_ canvas: ImageSize) -> Bool {
        x == 0 && y == 0 && width == canvas.width && height == canvas.height
    }

    /// For each frame, the nearest frame at or before it from which compositing can start on a
    /// cleared canvas (libwebp's key-frame rule): a full-canvas frame that replaces what is under
    /// it, or any frame after one that disposed the whole canvas to background.
    static func keyFrames(_ frames: [WebPFrameInfo], canvas: ImageSize) -> [Int] {
        var keys: [Int] = []
        keys.reserveCapacity(frames.count)
        var previousIsKey = false
        for (index, frame) in frames.enumerated() {
            let isKey: Bool
            if index == 0 {
                isKey = true
            } else if frame.covers(canvas) && (!frame.hasAlpha || !frame.blends) {
                isKey = true
            } else {
                let previous = frames[index - 1]
                isKey = previous.disposesToBackground && (previous.covers(canvas) || previousIsKey)
            }
            keys.append(isKey ? index : keys[index - 1])
            previousIsKey = isKey
        }
        return keys
    }
}
