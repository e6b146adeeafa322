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

    /// libjpeg's suspended decode and what it has shown so far.
    private struct Progress {
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
    }

    private let options: ImageDecodeOptions
    private let colorConverters: ImageColorConvertersManager
    private let state = Mutex(IncrementalDecodeState<Progress>())

    init(options: ImageDecodeOptions, colorConverters: ImageColorConvertersManager) {
        self.options = options
        self.colorConverters = colorConverters
    }

    func update(_ data: Data, isComplete: Bool) {
        let options = self.options, colorConverters = self.colorConverters
        state.withLock { state in
            state.update(data, isComplete: isComplete, decodeComplete: { try JPEGDecoder.decode($0, options: options, colorConverters: colorConverters) }) { progress, data, fed in
                if progress == nil {
                    // Partial images stop at the scan and memory limits; the time budget is the
                    // final decode's (a slow download is no reason to stop showing progress).
                    let decompressor = try JPEGDecompressor()
                    decompressor.limit(options, checkpoint: nil, frame: JPEGHeaderScan(data).frame)
                    progress = Progress(decompressor: decompressor)
                }
                try Self.feed(&progress!, data: data, fed: fed, options: options)
                return true
            }
        }
    }

    func currentImage() throws -> Image? {
        let options = self.options
        return try state.withLock { state -> Image? in
            try state.currentImage { progress in
                guard let partial = progress.partial else { return nil }
                return Image(
                    partial, format: .jpeg, orientation: progress.orientation, scale: options.scaleFactor,
                    metadata: ImageMetadata(isIncremental: true, decodeOptions: options))
            }
        }
    }

    /// Appends the new bytes and runs libjpeg as far as they allow. Limits and unsupported
    /// variants (a bomb header, 12-bit samples) throw, and are final.
    private static func feed(_ progress: inout Progress, data: Data, fed: Int, options: ImageDecodeOptions) throws {
        guard progress.stage != .done, let decompressor = progress.decompressor else { return }
        do {
            try data.withUnsafeBytes { try decompressor.append(UnsafeRawBufferPointer(rebasing: $0[fed...]), isComplete: false) }
            try advance(&progress, decompressor: decompressor, data: data, options: options)
        } catch ImagePipeError.badImageData {
            // libjpeg cannot always decode what it has so far: its arithmetic decoder cannot
            // suspend ("Suspension not allowed here"), and damage may be only apparent before
            // the rest arrives. Stop showing partials and let the one-shot decode of the
            // complete bytes give the verdict, so a valid file never fails part-way.
            progress.stage = .done
            progress.decompressor = nil
        }
    }

    /// Runs libjpeg as far as the bytes so far allow; every step may suspend and is resumed by the
    /// next call.
    private static func advance(_ progress: inout Progress, decompressor: JPEGDecompressor, data: Data, options: ImageDecodeOptions) throws {
        let info = decompressor.info
        while true {
            switch progress.stage {
            case .header:
                // The marker scan sees a frame header as soon as it arrives, while libjpeg waits
                // for the first scan: a bomb or a 12-bit file is refused at once.
                let scan = JPEGHeaderScan(data)
                try JPEGDecoder.preflight(scan, options: options)
                guard try decompressor.readHeader() else { return }
                progress.orientation = ImageOrientation(exifValue: scan.exifOrientation ?? 1)
                let plan = try JPEGDecodePlan(info: info, options: options)
                plan.apply(to: info)
                // Only multi-scan files have anything to show between scans.
                info.pointee.buffered_image = info.pointee.progressive_mode
                progress.plan = plan
                progress.stage = .start
            case .start:
                guard try decompressor.startDecompress() else { return }
                let width = Int(info.pointee.output_width), height = Int(info.pointee.output_height)
                progress.rowBytes = width * Int(info.pointee.output_components)
                progress.output = [UInt8](repeating: 0, count: progress.rowBytes * height)
                progress.stage = info.pointee.buffered_image != 0 ? .buffered : .sequential
            case .sequential:
                try readSequentialRows(&progress, decompressor: decompressor)
                return
            case .buffered:
                try showCompletedScans(&progress, decompressor: decompressor, options: options)
                return
            case .done:
                return
            }
        }
    }

    private static func readSequentialRows(_ progress: inout Progress, decompressor: JPEGDecompressor) throws {
        let height = Int(decompressor.info.pointee.output_height)
        let before = progress.rowsDone
        try readRows(&progress, decompressor: decompressor, height: height)
        if progress.rowsDone == height { progress.stage = .done }
        guard progress.rowsDone > before, let plan = progress.plan else { return }
        progress.partial = try plan.pixels(
            fromOutput: Array(progress.output.prefix(progress.rowsDone * progress.rowBytes)),
            width: progress.rowBytes / plan.outputComponents, height: progress.rowsDone)
    }

    /// Consumes what has arrived, then shows the newest completed scan. Scans are only shown once
    /// complete, so reading their rows never needs input that has not arrived.
    private static func showCompletedScans(_ progress: inout Progress, decompressor: JPEGDecompressor, options: ImageDecodeOptions) throws {
        let info = decompressor.info
        if progress.finishOutputPending {
            guard try decompressor.finishOutput() else { return }
            progress.finishOutputPending = false
        }
        consuming: while true {
            switch try decompressor.consumeInput() {
            case JPEG_SUSPENDED: break consuming
            case JPEG_REACHED_SOS: try options.checkProgressiveScans(Int(info.pointee.input_scan_number))
            case JPEG_SCAN_COMPLETED: progress.completedScan = info.pointee.input_scan_number
            case JPEG_REACHED_EOI:
                progress.completedScan = info.pointee.input_scan_number
                break consuming
            default: continue
            }
        }
        guard progress.completedScan > progress.shownScan, let plan = progress.plan else { return }
        guard try decompressor.startOutput(scan: progress.completedScan) else { return }
        progress.rowsDone = 0
        let height = Int(info.pointee.output_height)
        try readRows(&progress, decompressor: decompressor, height: height)
        progress.shownScan = progress.completedScan
        progress.partial = try plan.pixels(fromOutput: progress.output, width: progress.rowBytes / plan.outputComponents, height: height)
        progress.finishOutputPending = !(try decompressor.finishOutput())
    }

    private static func readRows(_ progress: inout Progress, decompressor: JPEGDecompressor, height: Int) throws {
        let rowBytes = progress.rowBytes
        var done = progress.rowsDone
        try progress.output.withUnsafeMutableBufferPointer { output in
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
        progress.rowsDone = done
    }
}
