import CJXL
import Foundation
import PipelineCore
import Synchronization

/// A progressive JPEG XL load: bytes go to one libjxl decoder as they arrive, and what it has of
/// the first frame is drawn (`JxlDecoderFlushImage`: the groups decoded so far, or for a
/// progressive file its low-resolution passes, upsampled) as a partial image
/// (`metadata.isIncremental`). Once the bytes are complete the image is decoded one-shot, so the
/// final image is exactly what `JXLCoder.decode` gives. An animation shows its first frame.
final class JXLIncrementalDecoder: IncrementalImageDecoder {
    private let options: ImageDecodeOptions
    private let state = Mutex(IncrementalDecodeState<JXLProgressiveStream>())

    init(options: ImageDecodeOptions) { self.options = options }

    func update(_ data: Data, isComplete: Bool) {
        let options = self.options
        state.withLock { state in
            state.update(data, isComplete: isComplete, decodeComplete: { try JXLCoder().decode($0, options: options) }) { stream, data, fed in
                if let stream {
                    stream.session.append(data[(data.startIndex + fed)...])
                } else {
                    stream = try JXLProgressiveStream(data, options: options)
                }
                try stream!.advance(options: options)
                return true
            }
        }
    }

    func currentImage() throws -> Image? {
        let options = self.options
        return try state.withLock { state -> Image? in
            try state.currentImage { stream in
                guard let info = stream.info, stream.drawn else { return nil }
                var buffer = try PixelBuffer(width: info.size.width, height: info.size.height, format: info.pixelFormat, bytes: stream.pixelBytes())
                let target = options.targetSize(for: info.size)
                if target != info.size { buffer = buffer.resampled(to: target) }
                return Image(
                    buffer, format: .jxl, orientation: info.orientation, scale: options.scaleFactor,
                    metadata: ImageMetadata(isIncremental: true, decodeOptions: options))
            }
        }
    }
}

/// One decoder fed the bytes of a load, and the first frame's output buffer it draws into.
final class JXLProgressiveStream {
    let session: JXLDecoderSession
    private(set) var info: JXLImageInfo?
    /// libjxl keeps a pointer to it from the frame's start until the decoder is destroyed.
    private var output: UnsafeMutableRawBufferPointer?
    /// Whether `output` holds something worth showing.
    private(set) var drawn = false
    private var frameDone = false

    init(_ data: Data, options: ImageDecodeOptions) throws {
        session = try JXLDecoderSession(data, events: JXL_DEC_BASIC_INFO, JXL_DEC_FULL_IMAGE, checkpoint: DecodeCheckpoint(options: options))
    }

    deinit { output?.deallocate() }

    /// Decodes as far as the bytes so far go.
    func advance(options: ImageDecodeOptions) throws {
        guard !frameDone else { return }
        session.stop.use(DecodeCheckpoint(options: options))
        if info == nil {
            let status = try session.next()
            guard status != JXL_DEC_NEED_MORE_INPUT else { return }
            guard status == JXL_DEC_BASIC_INFO else { throw ImagePipeError.badImageData(reason: "JPEG XL header is corrupt") }
            let read = JXLImageInfo(try session.basicInfo())
            try read.checkLimits(options)
            let count = try PixelBuffer.byteCount(width: read.size.width, height: read.size.height, format: read.pixelFormat)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            output = buffer
            info = read
        }
        guard let info, let output else { return }
        switch try session.decodeFrame(into: output, format: info.pixelFormat) {
        case .complete:
            (frameDone, drawn) = (true, true)
        case .truncated(let drawnNow):
            drawn = drawn || drawnNow
        case .noMoreFrames:
            frameDone = true
        }
    }

    func pixelBytes() -> [UInt8] { output.map { Array($0) } ?? [] }
}
