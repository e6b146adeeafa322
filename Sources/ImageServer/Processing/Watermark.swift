import Crypto
import Foundation
import PipelineCore

/// The server's watermark image, prepared once: upright, its first frame, RGBA, and a digest
/// that enters the cache keys of the results it marks (a server restarted with another image
/// never answers the old marks from disk).
struct Watermark: Sendable {
    let pixels: PixelBuffer
    /// The server's opacity, multiplied by each URL's.
    let opacity: Double
    let digest: String

    init(image: Image, opacity: Double) throws {
        pixels = try image.applyingOrientation().firstFrame.converted(to: .rgba8)
        self.opacity = opacity
        digest = Data(SHA256.hash(data: pixels.bytes).prefix(12)).base64URLEncodedWithoutPadding
    }
}
