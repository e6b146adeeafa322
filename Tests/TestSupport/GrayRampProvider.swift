import Foundation
import PipelineCore

/// Frames of solid gray, frame i has value i % 256; counts decodes.
public final class GrayRampProvider: AnimatedImageProvider {
    public let frameCount: Int
    public let canvasSize = ImageSize(width: 16, height: 16)
    public let decodes = Counter()
    public init(frames: Int) { frameCount = frames }
    public var data: Data { Data("ramp".utf8) }
    public var format: ImageFormat { .gif }
    public var pixelFormat: PixelFormat { .gray8 }
    public var loopCount: Int { 0 }
    public func duration(at index: Int) -> Double { 0.1 }
    public func frame(at index: Int) throws -> PixelBuffer {
        decodes.increment()
        return try PixelBuffer(width: 16, height: 16, format: .gray8, fill: ImageColor(red: UInt8(index % 256), green: UInt8(index % 256), blue: UInt8(index % 256)))
    }
}
