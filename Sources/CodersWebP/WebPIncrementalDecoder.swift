import CWebP
import Foundation
import PipelineCore
import Synchronization

/// One progressive load of a WebP. Still files go through libwebp's incremental decoder, which
/// yields the rows decoded so far; animated files show their first frame once it has arrived
/// (SDWebImage shows only the first frame while loading too).
final class WebPIncrementalDecoder: IncrementalImageDecoder {
    private let options: ImageDecodeOptions
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var data = Data()
        var isComplete = false
        var isAnimated = false
        /// libwebp's `WebPIDecoder`, owned here and deleted in `deinit`.
        var decoder: OpaquePointer?
        var size = ImageSize.zero
        var format = PixelFormat.rgba8
        /// Bytes already handed to `WebPIAppend` (it copies them, so `data` may move).
        var consumed = 0

        mutating func reset() {
            if let decoder { WebPIDelete(decoder) }
            decoder = nil
            consumed = 0
        }

        deinit { if let decoder { WebPIDelete(decoder) } }
    }

    init(options: ImageDecodeOptions) { self.options = options }

    func update(_ data: Data, isComplete: Bool) {
        state.withLock { state in
            if data.count < state.consumed { state.reset() }
            state.data = data
            state.isComplete = isComplete
        }
    }

    func currentImage() throws -> Image? {
        try state.withLock { state -> Image? in
            if state.isComplete { return try WebPCoder().decode(state.data, options: options) }
            guard let buffer = try partialBuffer(&state) else { return nil }
            return Image(
                buffer, format: .webp, scale: options.scaleFactor,
                metadata: ImageMetadata(isIncremental: true, decodeOptions: options))
        }
    }

    private func partialBuffer(_ state: inout State) throws -> PixelBuffer? {
        if state.decoder == nil && !state.isAnimated {
            var features = WebPBitstreamFeatures()
            let status = state.data.withUnsafeBytes {
                WebPGetFeatures($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &features)
            }
            if status == VP8_STATUS_NOT_ENOUGH_DATA { return nil }
            guard status == VP8_STATUS_OK else { throw WebPPixelDecoder.error(status) }
            if features.has_animation != 0 {
                state.isAnimated = true
            } else {
                state.size = ImageSize(width: Int(features.width), height: Int(features.height))
                try options.checkPixelLimit(state.size)
                state.format = features.has_alpha != 0 ? .rgba8 : .rgb8
                state.decoder = WebPINewRGB(state.format == .rgba8 ? MODE_RGBA : MODE_RGB, nil, 0, 0)
                guard state.decoder != nil else { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
            }
        }
        if state.isAnimated { return try WebPStillDecoder.firstFrame(ofPartial: state.data, options: options) }
        guard let decoder = state.decoder else { return nil }
        if state.data.count > state.consumed {
            let status = state.data[(state.data.startIndex + state.consumed)...].withUnsafeBytes {
                WebPIAppend(decoder, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
            }
            guard status == VP8_STATUS_OK || status == VP8_STATUS_SUSPENDED else { throw WebPPixelDecoder.error(status) }
            state.consumed = state.data.count
        }
        var lastRow: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard let rows = WebPIDecGetRGB(decoder, &lastRow, &width, &height, &stride), lastRow > 0,
            Int(width) == state.size.width, Int(height) == state.size.height
        else { return nil }
        let rowBytes = state.size.width * state.format.bytesPerPixel
        let count = try PixelBuffer.byteCount(width: state.size.width, height: state.size.height, format: state.format)
        var pixels = [UInt8](repeating: 0, count: count)
        pixels.withUnsafeMutableBufferPointer { out in
            for row in 0..<min(Int(lastRow), state.size.height) {
                out.baseAddress!.advanced(by: row * rowBytes).update(from: rows.advanced(by: row * Int(stride)), count: rowBytes)
            }
        }
        let buffer = try PixelBuffer(width: state.size.width, height: state.size.height, format: state.format, bytes: pixels)
        let target = options.targetSize(for: state.size)
        return target == state.size ? buffer : buffer.resampled(to: target)
    }
}
