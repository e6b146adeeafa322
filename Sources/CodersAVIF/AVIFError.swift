import CAVIF
import PipelineCore

/// libavif's result codes as `ImagePipeError`s, with its diagnostic line when it wrote one.
enum AVIFError {
    static func decoding(_ result: avifResult, _ diag: avifDiagnostics, stage: String) -> ImagePipeError {
        let detail = message(result, diag)
        switch result {
        case AVIF_RESULT_OUT_OF_MEMORY:
            return .limitExceeded(.bytes, value: .max, maximum: .max)
        case AVIF_RESULT_NO_CODEC_AVAILABLE:
            return .unsupportedFormat(.avif, reason: "libavif was built without an AV1 decoder")
        case AVIF_RESULT_NOT_IMPLEMENTED, AVIF_RESULT_UNSUPPORTED_DEPTH:
            return .unsupportedFormat(.avif, reason: "libavif does not support a feature this file uses: \(detail)")
        case AVIF_RESULT_TRUNCATED_DATA, AVIF_RESULT_IO_ERROR, AVIF_RESULT_WAITING_ON_IO:
            return .badImageData(reason: "AVIF data is truncated (\(stage)): \(detail)")
        default:
            return .badImageData(reason: "AVIF \(stage) is corrupt: \(detail)")
        }
    }

    static func encoding(_ result: avifResult, _ diag: avifDiagnostics) -> ImagePipeError {
        if result == AVIF_RESULT_OUT_OF_MEMORY { return .limitExceeded(.bytes, value: .max, maximum: .max) }
        return .encodingFailed(reason: "libavif: \(message(result, diag))")
    }

    /// The size in libavif's "dimensions are too large [WxH]", the one place it reports a size
    /// over its own limit.
    static func claimedSize(in diag: avifDiagnostics) -> ImageSize? {
        let text = message(AVIF_RESULT_OK, diag)
        guard let marker = text.range(of: "dimensions are too large [") else { return nil }
        let numbers = text[marker.upperBound...].prefix { $0 != "]" }.split(separator: "x").compactMap { Int($0) }
        guard numbers.count == 2 else { return nil }
        return ImageSize(width: numbers[0], height: numbers[1])
    }

    /// libavif's diagnostic line, else the result's name.
    static func message(_ result: avifResult, _ diag: avifDiagnostics) -> String {
        var diag = diag
        let text = withUnsafeBytes(of: &diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? String(cString: ip_avifResultToString(result)) : text
    }
}
