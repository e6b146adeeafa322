import CCurl
import CCurlShim
import PipelineCore

/// libcurl result codes in ImagePipe's terms.
enum CurlErrors {
    /// What is known about a failed attempt.
    struct Failure {
        var code: CURLcode
        /// libcurl's own message for this failure (its error buffer); may be empty.
        var detail: String
        /// The request's URL.
        var url: String
        /// Whether it failed after a status line arrived and before the body: while reading headers.
        var duringHeaders: Bool
        /// The response's `Content-Length`, when one arrived.
        var announcedLength: Int64?
    }

    /// libcurl rejects a single header line longer than this (`CURL_MAX_HTTP_HEADER`, fixed when
    /// libcurl is built), with nothing but "out of memory" to say for it.
    static let maxHeaderLineBytes = 100 * 1024

    static func map(_ failure: Failure, configuration: HTTPLoaderConfiguration) -> ImagePipeError {
        let code = failure.code
        let text = failure.detail.isEmpty ? String(cString: ip_curl_easy_strerror(Int32(code.rawValue))) : failure.detail
        let message = "\(text) (curl \(code.rawValue))"
        func transport(_ kind: ImagePipeError.LoadFailure) -> ImagePipeError {
            .transport(kind: kind, message: message)
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            let settings =
                failure.detail.contains("too slow")
                ? "HTTPLoaderConfiguration.lowSpeedLimit and lowSpeedTime set the slowest transfer accepted"
                : "HTTPLoaderConfiguration.timeout and connectTimeout set the time allowed"
            return .transport(kind: .timedOut, message: "\(message); \(settings)")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return transport(.cannotFindHost)
        case CURLE_COULDNT_CONNECT:
            return transport(.cannotConnect)
        case CURLE_RECV_ERROR where failure.detail.contains("Too large response headers"):
            // libcurl's cap on all of a response's headers together (300 KiB), fixed at build time.
            return .invalidResponse(reason: "the response's headers are larger than libcurl accepts: \(message)")
        case CURLE_OUT_OF_MEMORY where failure.duringHeaders:
            return .invalidResponse(
                reason: """
                    a response header line is longer than libcurl accepts (\(maxHeaderLineBytes / 1024) KiB, \
                    CURL_MAX_HTTP_HEADER; no setting raises it) (curl \(code.rawValue))
                    """)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_HTTP3:
            return transport(.connectionLost)
        case CURLE_WEIRD_SERVER_REPLY:
            return .invalidResponse(reason: "the server's answer is not HTTP: \(message)")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return transport(.tls)
        case CURLE_TOO_MANY_REDIRECTS:
            return .limitExceeded(.redirects, value: configuration.maxRedirects + 1, maximum: configuration.maxRedirects)
        case CURLE_UNSUPPORTED_PROTOCOL where failure.detail.contains("HTTP/0.9"):
            // What libcurl makes of an answer without a status line (HTTP/0.9 is off since 7.66).
            return .invalidResponse(reason: "the server's answer is not HTTP: \(message)")
        case CURLE_UNSUPPORTED_PROTOCOL:
            return transport(.unsupportedScheme)
        case CURLE_URL_MALFORMAT:
            return .invalidURL(failure.url)
        case CURLE_FILESIZE_EXCEEDED:
            // libcurl refuses a too-large Content-Length before the body, and stops at the limit without one.
            let limit = Int(clamping: configuration.maxResponseBytes)
            let value = failure.announcedLength.map { Int(clamping: $0) }.flatMap { $0 > limit ? $0 : nil }
            return .limitExceeded(.responseBytes, value: value ?? limit + 1, maximum: limit)
        case CURLE_BAD_CONTENT_ENCODING:
            return .badImageData(reason: "the response's content encoding is corrupt: \(message)")
        default:
            return transport(.other)
        }
    }
}
