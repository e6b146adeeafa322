import CJPEG
import Foundation
import PipelineCore
import Synchronization

/// A progressive JPEG load on libjpeg's suspending source. Baseline files show the rows decoded
/// so far; progressive files run in buffered-image mode and show the whole picture again after
/// each completed scan, sharper each time. Once the bytes are complete the image is decoded
/// one-shot from them, so the final image is exactly what `JPEGCoder.decode` gives.
final class JPEGIncrementalDecoder: IncrementalImageDecoder {
    private enum Stage {
        case header, start, sequential, buffered, done
    }

    private struct State {
        var decompressor: JPEGDecompressor?
        var stage = Stage.header
        var plan: JPEGDecodePlan?
        var orientation = ImageOrientation.up
        /// libjpeg's output canvas (`plan.outputComponents` bytes a pixel).
        var output: [UInt8] = []
        var rowBytes = 0
        var rowsDone = 0
        var completedScan: Int32 = 0
        var shownScan: Int32 = 0
        var finishOutputPending = false
        var partial: PixelBuffer?
        var fed = 0
        var failure: (any Error)?
        var final: Result<Image, any Error>?
    }

    private let options: ImageDecodeOptions
    private let state = Mutex(State())

    init(options: ImageDecodeOptions) {
        self.options = options
    }

    func update(_ data: Data, isComplete: Bool) {
        let options = self.options
        state.withLock { state in
            guard state.final == nil else { return }
            if isComplete {
                state.decompressor = nil
                state.final = Result { try JPEGDecoder.decode(data, options: options).0 }
                return
            }
            guard state.failure == nil, state.stage != .done, data.count > state.fed else { return }
            do {
                let decompressor = try state.decompressor ?? JPEGDecompressor()
                state.decompressor = decompressor
                let start = state.fed
                try data.withUnsafeBytes { try decompressor.append(UnsafeRawBufferPointer(rebasing: $0[start...]), isComplete: false) }
                state.fed = data.count
                try Self.advance(&state, decompressor: decompressor, data: data, options: options)
            } catch ImagePipeError.badImageData {
                // libjpeg cannot always decode what it has so far: its arithmetic decoder cannot
                // suspend ("Suspension not allowed here"), and damage may be only apparent before
                // the rest arrives. Stop showing partials and let the one-shot decode of the
                // complete bytes give the verdict, so a valid file never fails part-way.
                state.stage = .done
                state.decompressor = nil
            } catch {
                // Limits and unsupported variants (a bomb header, 12-bit samples) are final now.
                state.failure = error
                state.decompressor = nil
            }
        }
    }

    func currentImage() throws -> Image? {
        let options = self.options
        return try state.withLock { state -> Image? in
            if let final = state.final { return try final.get() }
            if let failure = state.failure { throw failure }
            guard let partial = state.partial else { return nil }
            return Image(partial, format: .jpeg, orientation: state.orientation, scale: options.scaleFactor,
                         metadata: ImageMetadata(isIncremental: true, decodeOptions: options))
        }
    }

    /// Runs libjpeg as far as the bytes so far allow; every step may suspend and is resumed by the
    /// next call.
    private static func advance(_ state: inout State, decompressor: JPEGDecompressor, data: Data, options: ImageDecodeOptions) throws {
        let info = decompressor.info
        while true {
            switch state.stage {
            case .header:
                // The marker scan sees a frame header as soon as it arrives, while libjpeg waits
                // for the first scan: a bomb or a 12-bit file is refused at once.
                let scan = JPEGHeaderScan(data)
                try JPEGDecoder.preflight(scan, options: options)
                guard try decompressor.readHeader() else { return }
                state.orientation = ImageOrientation(exifValue: scan.exifOrientation ?? 1)
                let plan = try JPEGDecodePlan(info: info, options: options)
                plan.apply(to: info)
                // Only multi-scan files have anything to show between scans.
                info.pointee.buffered_image = info.pointee.progressive_mode
                state.plan = plan
                state.stage = .start
            case .start:
                guard try decompressor.startDecompress() else { return }
                let width = Int(info.pointee.output_width), height = Int(info.pointee.output_height)
                state.rowBytes = width * Int(info.pointee.output_components)
                state.output = [UInt8](repeating: 0, count: state.rowBytes * height)
                state.stage = info.pointee.buffered_image != 0 ? .buffered : .sequential
            case .sequential:
                try readSequentialRows(&state, decompressor: decompressor)
                return
            case .buffered:
                try showCompletedScans(&state, decompressor: decompressor)
                return
            case .done:
                return
            }
        }
    }

    private static func readSequentialRows(_ state: inout State, decompressor: JPEGDecompressor) throws {
        let height = Int(decompressor.info.pointee.output_height)
        let before = state.rowsDone
        try readRows(&state, decompressor: decompressor, height: height)
        if state.rowsDone == height { state.stage = .done }
        guard state.rowsDone > before, let plan = state.plan else { return }
        state.partial = try plan.pixels(fromOutput: Array(state.output.prefix(state.rowsDone * state.rowBytes)),
                                        width: state.rowBytes / plan.outputComponents, height: state.rowsDone)
    }

    /// Consumes what has arrived, then shows the newest completed scan. Scans are only shown once
    /// complete, so reading their rows never needs input that has not arrived.
    private static func showCompletedScans(_ state: inout State, decompressor: JPEGDecompressor) throws {
        let info = decompressor.info
        if state.finishOutputPending {
            guard try decompressor.finishOutput() else { return }
            state.finishOutputPending = false
        }
        consuming: while true {
            switch try decompressor.consumeInput() {
            case JPEG_SUSPENDED: break consuming
            case JPEG_SCAN_COMPLETED: state.completedScan = info.pointee.input_scan_number
            case JPEG_REACHED_EOI:
                state.completedScan = info.pointee.input_scan_number
                break consuming
            default: continue
            }
        }
        guard state.completedScan > state.shownScan, let plan = state.plan else { return }
        guard try decompressor.startOutput(scan: state.completedScan) else { return }
        state.rowsDone = 0
        let height = Int(info.pointee.output_height)
        try readRows(&state, decompressor: decompressor, height: height)
        state.shownScan = state.completedScan
        state.partial = try plan.pixels(fromOutput: state.output, width: state.rowBytes / plan.outputComponents, height: height)
        state.finishOutputPending = !(try decompressor.finishOutput())
    }

    private static func readRows(_ state: inout State, decompressor: JPEGDecompressor, height: Int) throws {
        let rowBytes = state.rowBytes
        var done = state.rowsDone
        try state.output.withUnsafeMutableBufferPointer { output in
            guard let base = output.baseAddress else { return }
            var rows = (0..<height).map { Optional(base + $0 * rowBytes) }
            try rows.withUnsafeMutableBufferPointer { rows in
                while done < height {
                    let read = try decompressor.readScanlines(into: rows.baseAddress! + done, count: height - done)
                    if read == 0 { break }
                    done += read
                }
            }
        }
        state.rowsDone = done
    }
}
