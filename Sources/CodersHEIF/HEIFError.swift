import CHEIF
import PipelineCore

/// libheif's errors as `ImagePipeError`s.
enum HEIFError {
    /// Nil for `heif_error_Ok`.
    static func from(_ error: heif_error, stage: String) -> ImagePipeError? {
        guard error.code != heif_error_Ok else { return nil }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        if error.subcode == heif_suberror_Security_limit_exceeded {
            return .badImageData(reason: "HEIF \(stage) exceeds libheif's security limits: \(message)")
        }
        switch error.code {
        case heif_error_Memory_allocation_error:
            return .limitExceeded(.bytes, value: .max, maximum: .max)
        case heif_error_Unsupported_feature, heif_error_Unsupported_filetype, heif_error_Plugin_loading_error:
            return .unsupportedFormat(.heif, reason: "libheif cannot decode this file (\(stage)): \(message)")
        default:
            return .badImageData(reason: "HEIF \(stage) is corrupt or truncated: \(message)")
        }
    }

    /// The size in libheif's "Image size WxH exceeds the maximum image size", its refusal of a
    /// size over the limit it was given.
    static func claimedSize(_ error: heif_error) -> ImageSize? {
        guard error.subcode == heif_suberror_Security_limit_exceeded, let text = error.message.map({ String(cString: $0) }),
            let marker = text.range(of: "Image size ")
        else { return nil }
        let numbers = text[marker.upperBound...].prefix { $0 != " " }.split(separator: "x").compactMap { Int($0) }
        return numbers.count == 2 ? ImageSize(width: numbers[0], height: numbers[1]) : nil
    }

    static func check(_ error: heif_error, stage: String) throws {
        if let failure = from(error, stage: stage) { throw failure }
    }
}
