import CCurl
import PipelineCore

/// libcurl result codes in ImagePipe's terms.
enum CurlErrors {
    static func map(_ code: CURLcode, configuration: HTTPLoaderConfiguration) -> ImagePipeError {
        let message = String(cString: curl_easy_strerror(code))
        func transport(_ kind: ImagePipeError.TransportErrorKind) -> ImagePipeError {
            .transport(kind: kind, message: "\(message) (curl \(code.rawValue))")
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return transport(.timedOut)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return transport(.cannotFindHost)
        case CURLE_COULDNT_CONNECT:
            return transport(.cannotConnect)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2,
             CURLE_HTTP2_STREAM, CURLE_HTTP3:
            return transport(.connectionLost)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return transport(.tls)
        case CURLE_TOO_MANY_REDIRECTS:
            return .limitExceeded(.redirects, value: configuration.maxRedirects + 1, maximum: configuration.maxRedirects)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return transport(.unsupportedScheme)
        case CURLE_URL_MALFORMAT:
            return .invalidURL(message)
        case CURLE_FILESIZE_EXCEEDED:
            let limit = Int(clamping: configuration.maxResponseBytes)
            return .limitExceeded(.responseBytes, value: limit + 1, maximum: limit)
        case CURLE_BAD_CONTENT_ENCODING:
            return .badImageData(reason: "the response's content encoding is corrupt: \(message)")
        default:
            return transport(.other)
        }
    }
}
