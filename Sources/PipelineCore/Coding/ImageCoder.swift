import Foundation

/// Decodes bytes of one or more formats into images, and encodes images into them.
///
/// Calls are synchronous: decoding is pure CPU work that the pipeline schedules on its own bounded
/// executor. Every method may be called from many tasks at once. Failures throw `ImagePipeError`
/// (`badImageData`, `limitExceeded`, `unsupportedFormat`, `encodingFailed`), never crash.
public protocol ImageCoder: Sendable {
    /// Whether this coder decodes these bytes, judged from magic bytes only (cheap: no decoding).
    func canDecode(_ data: Data) -> Bool
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image
    /// Whether this coder decodes files of `format` (what the HTTP loader's `Accept` header
    /// offers). Default: `canEncode(to:)`; a decode-only coder answers itself.
    func canDecode(format: ImageFormat) -> Bool
    func canEncode(to format: ImageFormat) -> Bool
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data
    /// Encodes an animation (`loopCount` 0 = forever). Coders of still formats keep the default,
    /// which writes the first frame.
    func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data
    /// What decoding `data` with `options` will hold in memory, read from the header alone (no
    /// pixel work, no large allocation); nil when the coder cannot tell without decoding. The
    /// pipeline reserves it from the `DecodeMemoryBudget` before calling `decode`; a decode
    /// without an estimate is not counted. Default: nil.
    func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate?
    /// Where the first frame of the file that `prefix` begins ends, read from `prefix` alone (no
    /// pixel work): a loader asked for the first frame only (`FirstFrameLoad`) reads until this
    /// answers `.endsAt`. The answer must cover every byte `decode` reads with
    /// `ImageDecodeOptions.firstFrameOnly`. `prefix` may borrow the loader's buffer: keep nothing
    /// of it after returning. Default: `.unknown` (the whole file is read).
    func firstFrameExtent(of prefix: Data) -> ImageFirstFrameExtent
}

extension ImageCoder {
    public func canDecode(format: ImageFormat) -> Bool { canEncode(to: format) }

    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? { nil }

    public func firstFrameExtent(of prefix: Data) -> ImageFirstFrameExtent { .unknown }

    public func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard let first = frames.first else {
            throw ImagePipeError.encodingFailed(reason: "no frames to encode")
        }
        return try encode(Image(first.buffer, format: format), as: format, options: options)
    }
}
