import Foundation
import PipelineCore

/// A response as `HTTPLoader` received it: what response modifiers see and change, and what a
/// load's `ImageLoadResult.response` holds (`result.httpResponse`).
public struct HTTPLoadResponse: ImageLoadResponse, Hashable {
    /// The URL finally answered (after redirects).
    public var url: URL
    public var statusCode: Int
    public var headers: [String: String]

    public init(url: URL, statusCode: Int, headers: [String: String] = [:]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The MIME type of `Content-Type`, lowercased, without parameters.
    public var mimeType: String? {
        header("Content-Type")?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    public var entityTag: String? { header("ETag") }
    public var lastModified: String? { header("Last-Modified") }

    /// The length the server announced, if any.
    public var expectedContentLength: Int64? {
        header("Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}

extension ImageLoadResult {
    /// The HTTP response, when `HTTPLoader` loaded the bytes.
    public var httpResponse: HTTPLoadResponse? { response as? HTTPLoadResponse }
}
