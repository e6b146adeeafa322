import PipelineCore

/// A short, stable name for what failed, for metrics dimensions and log metadata: the case name,
/// and for limits and loader failures the limit's or failure's name after a dot
/// (`limitExceeded.pixels`, `loadFailed.httpStatus`). The set of names is small and fixed by the
/// code, so it is safe as a metrics dimension; messages and URLs never appear in it.
extension ImagePipeError {
    public var kind: String {
        switch self {
        case .invalidURL: "invalidURL"
        case .badImageData: "badImageData"
        case .cacheNotModified: "cacheNotModified"
        case .blockedURL: "blockedURL"
        case .invalidDownloadOperation: "invalidDownloadOperation"
        case .cancelled: "cancelled"
        case .invalidResponse: "invalidResponse"
        case .badContentType: "badContentType"
        case .loadFailed(let failure, _, _): "loadFailed." + failure.name
        case .limitExceeded(let limit, _, _): "limitExceeded." + limit.name
        case .unsupportedFormat: "unsupportedFormat"
        case .encodingFailed: "encodingFailed"
        case .fileSystem: "fileSystem"
        case .accessDenied: "accessDenied"
        case .frameOutOfRange: "frameOutOfRange"
        }
    }
}
