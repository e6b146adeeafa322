import Foundation

/// An encoder taking a still image a strip of rows at a time, top row first, and writing the file
/// as they come, so neither the image nor the file is held. Used by one thread.
package protocol ImageRowSink: AnyObject {
    /// The next rows, in the size and format the sink was made for.
    func write(_ rows: PixelBuffer) throws
    /// Ends the file after the last row.
    func finish() throws
}

/// A coder that can encode row by row (`ImageRowSink`) into a file descriptor.
package protocol RowStreamingEncoder: ImageCoder {
    /// Calls `body` with a sink writing `format` for an image of `size` and `pixelFormat` (upright,
    /// its colour already as it should be written, no metadata) to `fileDescriptor`; nil, without
    /// calling `body`, when these options need the whole image (a file-size limit, which encodes
    /// several times; a size box the image is larger than).
    func withRowSink<Result>(
        size: ImageSize, pixelFormat: PixelFormat, as format: ImageFormat, options: ImageEncodeOptions,
        fileDescriptor: Int32, _ body: (any ImageRowSink) throws -> Result
    ) throws -> Result?
}
