import Foundation
import PipelineCore

/// Which failures are worth another attempt, and how long to wait before it.
enum RetryRule {
    static func isRetryable(_ error: ImagePipeError) -> Bool {
        switch error {
        case .loadFailed(.httpStatus, let status?, _): status == 408 || status == 429 || (500...599).contains(status)
        case .loadFailed(let failure, _, _): failure.isTransient
        default: false
        }
    }

    /// Seconds to wait, or nil when the transfer should fail now (not retryable, out of attempts,
    /// or the server asks for a longer wait than the policy allows).
    static func delay(after error: ImagePipeError, transfer: CurlTransfer) -> Double? {
        let policy = transfer.settings.configuration.retry
        // Bytes a sink was given cannot be taken back.
        guard isRetryable(error), transfer.attempt < policy.maxRetries, transfer.settings.bodySink == nil || transfer.receivedBytes == 0 else { return nil }
        if let asked = transfer.retryAfter {
            return asked <= policy.maxDelay ? asked : nil
        }
        let exponential = policy.baseDelay * pow(2, Double(transfer.attempt))
        return min(policy.maxDelay, exponential * Double.random(in: 0.5...1.5))
    }
}
