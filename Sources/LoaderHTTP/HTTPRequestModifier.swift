import Foundation

/// Changes a request before it is sent, or refuses it (nil), which fails the load with
/// `invalidDownloadOperation`. SDWebImage's `SDWebImageDownloaderRequestModifier`.
public struct HTTPRequestModifier: Sendable {
    public let modify: @Sendable (HTTPLoadRequest) -> HTTPLoadRequest?
    public init(_ modify: @escaping @Sendable (HTTPLoadRequest) -> HTTPLoadRequest?) { self.modify = modify }

    /// Sets headers (replacing those of the same name), and optionally the method and body.
    public static func setting(headers: [String: String] = [:], method: String? = nil, body: Data? = nil) -> HTTPRequestModifier {
        HTTPRequestModifier { request in
            var request = request
            for (name, value) in headers {
                request.headers = request.headers.filter { $0.key.caseInsensitiveCompare(name) != .orderedSame }
                request.headers[name] = value
            }
            if let method { request.method = method }
            if let body { request.body = body }
            return request
        }
    }
}
