import Foundation

/// A request as `HTTPLoader` is about to send it; what request modifiers see and change.
public struct HTTPLoadRequest: Sendable, Hashable {
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
