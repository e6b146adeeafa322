import PipelineCore

// LoaderHTTP's failures, reported as `ImagePipeError.loadFailed` so callers catch every loader's
// errors as one type, with SDWebImage's codes and the messages the CLI prints.

extension ImagePipeError.LoadFailure {
    /// The server answered with a status outside `HTTPLoaderConfiguration.acceptableStatusCodes`
    /// (2001); the error's `status` is the HTTP status.
    public static let httpStatus = Self(name: "httpStatus", code: 2001, isTransient: false)

    // Why a transfer failed (3000). Transient ones may succeed on retry and never block the URL.
    public static let timedOut = Self(name: "timedOut", code: 3000, isTransient: true)
    public static let cannotFindHost = Self(name: "cannotFindHost", code: 3000, isTransient: true)
    public static let cannotConnect = Self(name: "cannotConnect", code: 3000, isTransient: true)
    public static let connectionLost = Self(name: "connectionLost", code: 3000, isTransient: true)
    public static let tls = Self(name: "tls", code: 3000, isTransient: false)
    public static let unsupportedScheme = Self(name: "unsupportedScheme", code: 3000, isTransient: false)
    /// The SSRF guard refused the address before connecting; the message says which address and
    /// how to allow it (`HTTPLoaderConfiguration.allowedAddresses`).
    public static let blockedAddress = Self(name: "blockedAddress", code: 3000, isTransient: false)
    /// `HTTPLoaderConfiguration.redirectPolicy` refused where a redirect led, before connecting
    /// there.
    public static let redirectRefused = Self(name: "redirectRefused", code: 3000, isTransient: false)
    public static let other = Self(name: "other", code: 3000, isTransient: false)
    /// libcurl, which the loader opens on the first download rather than linking, could not be
    /// opened or initialised; the message names the library and says why. Never blocks a URL.
    public static let libraryUnavailable = Self(name: "libraryUnavailable", code: 3000, isTransient: false)
}

extension ImagePipeError {
    /// The server answered `status`, which the configuration does not accept: "the server
    /// answered HTTP 404".
    public static func badStatusCode(_ status: Int) -> ImagePipeError {
        .loadFailed(.httpStatus, status: status, message: "the server answered HTTP \(status)")
    }

    /// A transfer that failed for `kind`: "transfer failed (timedOut): …".
    public static func transport(kind: LoadFailure, message: String) -> ImagePipeError {
        .loadFailed(kind, status: nil, message: "transfer failed (\(kind.name)): \(message)")
    }

    /// The HTTP status of a `badStatusCode` error; nil for every other error.
    public var httpStatusCode: Int? {
        guard case .loadFailed(.httpStatus, let status, _) = self else { return nil }
        return status
    }
}
