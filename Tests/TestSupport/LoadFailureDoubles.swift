import PipelineCore

// The loader failures the test doubles report. The core declares none of its own; these are shaped
// as LoaderHTTP's, with the same names, codes and messages.

extension ImagePipeError.LoadFailure {
    public static let stubHTTPStatus = Self(name: "httpStatus", code: 2001, isTransient: false)
    public static let stubTimedOut = Self(name: "timedOut", code: 3000, isTransient: true)
}

extension ImagePipeError {
    public static func stubBadStatus(_ status: Int) -> ImagePipeError {
        .loadFailed(.stubHTTPStatus, status: status, message: "the server answered HTTP \(status)")
    }

    public static func stubTransport(kind: LoadFailure, message: String) -> ImagePipeError {
        .loadFailed(kind, status: nil, message: "transfer failed (\(kind.name)): \(message)")
    }
}
