@testable import PipelineCore

// The loader failures the test doubles report. The core declares none of its own; these are shaped
// as LoaderHTTP's, with the same names, codes and messages.

extension ImagePipeError.LoadFailure {
    static let httpStatus = Self(name: "httpStatus", code: 2001, isTransient: false)
    static let timedOut = Self(name: "timedOut", code: 3000, isTransient: true)
}

extension ImagePipeError {
    static func badStatusCode(_ status: Int) -> ImagePipeError {
        .loadFailed(.httpStatus, status: status, message: "the server answered HTTP \(status)")
    }

    static func transport(kind: LoadFailure, message: String) -> ImagePipeError {
        .loadFailed(kind, status: nil, message: "transfer failed (\(kind.name)): \(message)")
    }
}
