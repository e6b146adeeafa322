import ArgumentParser
import PipelineCore

/// The whole numbers the command line accepts, checked while parsing: a number no image could need
/// is a usage error naming the flag and its range, never an overflow or a runaway loop later on.
enum WholeNumberOption {
    /// `--frame`: no animation the tool decodes has more frames than the decoder's default limit.
    static let frame = 0...(ImageDecodeOptions.defaultMaxFrames - 1)
    /// `--concurrency`: more sources at once than this only adds contention, never speed.
    static let concurrency = 1...256
    /// `--quality`, in percent.
    static let quality = 0...100

    /// An `@Option` transform accepting the whole numbers in `range`.
    static func parser(_ range: ClosedRange<Int>) -> @Sendable (String) throws -> Int {
        { text in
            guard let value = Int(text), range.contains(value) else {
                throw ValidationError("expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
    }
}
