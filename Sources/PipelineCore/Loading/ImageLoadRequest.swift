import Foundation

/// A request as a loader is about to send it; what request modifiers see and change.
public struct ImageLoadRequest: Sendable, Hashable {
    public var url: URL
    public var method: String
    /// Header names as given; look-ups through `header(_:)` ignore case.
    public var headers: [String: String]
    public var body: Data?
    /// Seconds; nil means the loader's default.
    public var timeout: Double?

    public init(url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil, timeout: Double? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A response as a loader received it; what response modifiers see and change.
public struct ImageLoadResponse: Sendable, Hashable {
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

    /// The length the server announced, if any.
    public var expectedContentLength: Int64? {
        header("Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}

/// Changes a request before it is sent, or refuses it (nil), which fails the load with
/// `invalidDownloadOperation`. SDWebImage's `SDWebImageDownloaderRequestModifier`.
public struct ImageRequestModifier: Sendable {
    public let modify: @Sendable (ImageLoadRequest) -> ImageLoadRequest?
    public init(_ modify: @escaping @Sendable (ImageLoadRequest) -> ImageLoadRequest?) { self.modify = modify }

    /// Sets headers (replacing those of the same name), and optionally the method and body.
    public static func setting(headers: [String: String] = [:], method: String? = nil, body: Data? = nil) -> ImageRequestModifier {
        ImageRequestModifier { request in
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

/// Changes a response before it is validated, or refuses it (nil), which fails the load with
/// `invalidResponse`. SDWebImage's `SDWebImageDownloaderResponseModifier`.
public struct ImageResponseModifier: Sendable {
    public let modify: @Sendable (ImageLoadResponse) -> ImageLoadResponse?
    public init(_ modify: @escaping @Sendable (ImageLoadResponse) -> ImageLoadResponse?) { self.modify = modify }
}

/// Turns downloaded bytes into image bytes (decrypts, unwraps), or refuses them (nil), which fails
/// the load with `badImageData`. SDWebImage's `SDWebImageDownloaderDecryptor`.
public struct ImageDecryptor: Sendable {
    public let decrypt: @Sendable (Data, ImageLoadResponse?) -> Data?
    public init(_ decrypt: @escaping @Sendable (Data, ImageLoadResponse?) -> Data?) { self.decrypt = decrypt }

    /// Bytes that are the base64 text of the image.
    public static let base64 = ImageDecryptor { data, _ in
        Data(base64Encoded: data, options: .ignoreUnknownCharacters)
    }
}

/// The order queued downloads start in (SDWebImage's `SDWebImageDownloaderExecutionOrder`).
public enum ImageLoadExecutionOrder: String, Sendable, Hashable {
    /// First queued, first started (the default).
    case fifo
    /// Last queued, first started: what a scrolling list wants.
    case lifo
}

/// A download's place in the queue, from `.lowPriority` / `.highPriority`.
public enum ImageLoadPriority: Int, Sendable, Hashable, Comparable {
    case low = -1, normal = 0, high = 1

    public init(options: ImageOptions) {
        self = options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
    }

    public static func < (lhs: ImageLoadPriority, rhs: ImageLoadPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
