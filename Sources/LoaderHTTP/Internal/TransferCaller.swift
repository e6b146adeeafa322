import Foundation
import PipelineCore
import Synchronization

/// One caller of a (possibly shared) transfer: its own progress, throttled, with partial data only
/// if it asked for it, and its own decryptor.
final class TransferCaller: Sendable {
    private let progress: (@Sendable (ImageLoadProgress) -> Void)?
    private let minimumProgressInterval: Double
    private let wantsPartialData: Bool
    private let decryptor: ImageDecryptor?
    private let lastFraction = Mutex<Double>(-1)

    init(
        progress: (@Sendable (ImageLoadProgress) -> Void)?, minimumProgressInterval: Double,
        wantsPartialData: Bool, decryptor: ImageDecryptor?
    ) {
        self.progress = progress
        self.minimumProgressInterval = min(max(minimumProgressInterval, 0), 1)
        self.wantsPartialData = wantsPartialData
        self.decryptor = decryptor
    }

    /// Called on the loader thread; throttled by fraction as SDWebImage does, unknown totals
    /// report every chunk, the last byte of a known total always reports.
    func report(_ transfer: ImageLoadProgress) {
        guard let progress else { return }
        let fraction = transfer.expectedBytes.map { $0 > 0 ? Double(transfer.receivedBytes) / Double($0) : 1 }
        if let fraction {
            let shouldReport = lastFraction.withLock { last -> Bool in
                guard fraction >= 1 || fraction - last >= minimumProgressInterval || last < 0 else { return false }
                last = fraction
                return true
            }
            guard shouldReport else { return }
        }
        progress(
            ImageLoadProgress(
                receivedBytes: transfer.receivedBytes, expectedBytes: transfer.expectedBytes,
                partialData: wantsPartialData ? transfer.partialData : nil))
    }

    /// The transfer's result as this caller sees it: through its decryptor.
    func result(of shared: ImageLoadResult) throws(ImagePipeError) -> ImageLoadResult {
        guard let decryptor else { return shared }
        guard let plain = decryptor.decrypt(shared.data, shared.httpResponse) else {
            throw .badImageData(reason: "the decryptor returned no data")
        }
        var result = shared
        result.data = plain
        return result
    }
}
