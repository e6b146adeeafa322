/// How long a frame an animated file asks for is shown, by SDWebImage's rule for GIF, APNG and
/// WebP (the one browsers share): a delay of 10 ms or less, zero included, plays as 100 ms, because
/// files written for old browsers use it to mean "as fast as the player goes", which was ~100 ms.
public enum AnimationFrameDuration {
    /// Delays under this (in seconds) play as `fallback`.
    package static let minimum = 0.011
    static let fallback = 0.1

    /// `seconds` as players show it: under 11 ms becomes 100 ms.
    public static func clamped(_ seconds: Double) -> Double {
        seconds < minimum ? fallback : seconds
    }
}
