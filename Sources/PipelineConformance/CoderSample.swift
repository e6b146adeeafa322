import Foundation
import PipelineCore

/// A file a coder must decode, and what it must decode to.
public struct CoderSample: Sendable, CustomStringConvertible {
    public var name: String
    public var data: Data
    public var format: ImageFormat
    public var size: ImageSize
    public var frameCount: Int
    /// Expected loop count for animations (nil: not checked).
    public var loopCount: Int?
    /// Expected pixels of the first frame (nil: not checked), compared channel by channel within
    /// `tolerance` after converting to the reference's pixel format.
    public var reference: PixelBuffer?
    public var tolerance: Int

    public init(
        name: String, data: Data, format: ImageFormat, size: ImageSize, frameCount: Int = 1,
        loopCount: Int? = nil, reference: PixelBuffer? = nil, tolerance: Int = 0
    ) {
        self.name = name
        self.data = data
        self.format = format
        self.size = size
        self.frameCount = frameCount
        self.loopCount = loopCount
        self.reference = reference
        self.tolerance = tolerance
    }

    /// A sample read from a file.
    public init(file: URL, format: ImageFormat, size: ImageSize, frameCount: Int = 1, loopCount: Int? = nil) throws {
        self.init(
            name: file.lastPathComponent, data: try Data(contentsOf: file), format: format, size: size,
            frameCount: frameCount, loopCount: loopCount)
    }

    public var description: String { name }
}

extension PixelBuffer {
    /// The largest channel difference from `other` after converting to its format, or nil when the
    /// sizes differ.
    func maxDifference(from other: PixelBuffer) -> Int? {
        guard size == other.size else { return nil }
        let mine = converted(to: other.format)
        var worst = 0
        for (a, b) in zip(mine.bytes, other.bytes) { worst = Swift.max(worst, abs(Int(a) - Int(b))) }
        return worst
    }
}
