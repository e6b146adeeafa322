import Foundation
import PipelineCore
import Synchronization

/// A progressive coder for TIMG: shows the rows received so far.
public struct ProgressiveTestCoder: ProgressiveImageCoder {
    public init() {}
    let base = TestCoder(name: "progressive")
    public func canDecode(_ data: Data) -> Bool { base.canDecode(data) }
    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image { try base.decode(data, options: options) }
    public func canEncode(to format: ImageFormat) -> Bool { base.canEncode(to: format) }
    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { try base.encode(image, as: format, options: options) }
    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder { RowsSoFar() }

    public final class RowsSoFar: IncrementalImageDecoder {
        private let data = Mutex(Data())
        public func update(_ data: Data, isComplete: Bool) { self.data.withLock { $0 = data } }
        public func currentImage() throws -> Image? {
            let bytes = [UInt8](data.withLock { $0 })
            guard bytes.count > 9 else { return nil }
            let width = Int(bytes[4]) << 8 | Int(bytes[5])
            let rows = (bytes.count - 9) / (width * 4)
            guard rows > 0 else { return nil }
            return Image(try PixelBuffer(width: width, height: rows, format: .rgba8, bytes: Array(bytes[9..<(9 + rows * width * 4)])))
        }
    }
}
