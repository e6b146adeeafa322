/// A transition that names its animation and lasts `duration` (SDWebImage's presets, such as
/// `SDWebImageTransition.fadeTransition`): there is no animation framework on Linux, so the image
/// is shown at once and the UI layer that drew it animates with `style` and `duration` — it reads
/// them from the target's `imageTransition`. Its `done` is called at once.
import PipelineCore

public struct ImagePresetTransition: ImageTransition, Hashable {
    /// How the new image replaces the old one.
    public enum Style: String, Sendable, Hashable, CaseIterable {
        /// Cross-dissolve (SDWebImage's `fadeTransition`, `UIViewAnimationOptionTransitionCrossDissolve`).
        case fade
        case flipFromLeft, flipFromRight, flipFromTop, flipFromBottom
        case curlUp, curlDown
    }

    public let style: Style
    public let duration: Double

    public init(_ style: Style, duration: Double = 0.5) {
        self.style = style
        self.duration = duration
    }
}

extension ImageTransition where Self == ImagePresetTransition {
    /// A cross-dissolve of 0.5 s, SDWebImage's `fadeTransition`.
    public static var fade: ImagePresetTransition { ImagePresetTransition(.fade) }

    /// A cross-dissolve of `duration` seconds (`fadeTransitionWithDuration:`).
    public static func fade(duration: Double) -> ImagePresetTransition { ImagePresetTransition(.fade, duration: duration) }
}
