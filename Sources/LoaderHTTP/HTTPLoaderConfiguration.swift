import Foundation
import PipelineCore

/// User name and password for HTTP basic authentication.
public struct HTTPCredentials: Sendable, Hashable {
    public var user: String
    public var password: String
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// Retrying transient failures: timeouts, connection resets, 408, 429 and 5xx answers.
public struct HTTPRetryPolicy: Sendable, Hashable {
    /// Extra attempts after the first; 0 (the default) switches retrying off, as in SDWebImage.
    public var maxRetries: Int
    /// The first retry waits about this long (seconds); each next one twice as long, with ±50 %
    /// jitter so many clients failing together do not come back together.
    public var baseDelay: Double
    /// No wait is longer than this, `Retry-After` included (a server asking for an hour is refused
    /// by failing now rather than holding the caller).
    public var maxDelay: Double

    public init(maxRetries: Int = 0, baseDelay: Double = 0.5, maxDelay: Double = 30) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    public static let none = HTTPRetryPolicy()
}

/// Everything `HTTPLoader` does by default, SDWebImage's `SDWebImageDownloaderConfig` values
/// unless noted.
public struct HTTPLoaderConfiguration: Sendable {
    /// Transfers running at once; more wait in the queue. Default 6. Changeable while running
    /// through `HTTPLoader.maxConcurrentDownloads`.
    public var maxConcurrentDownloads: Int = 6
    /// Queue order when nothing in the context says otherwise. Default FIFO.
    public var executionOrder: HTTPExecutionOrder = .fifo
    /// Whole-transfer timeout in seconds (redirects included). Default 15; 0 means 15, as upstream.
    public var timeout: Double = 15
    /// Seconds to establish a connection (DNS, TCP, TLS). Default 15.
    public var connectTimeout: Double = 15
    /// Report progress only when the fraction advanced by at least this much (0…1; 0 reports every
    /// chunk). Transfers of unknown length report every chunk. Default 0.
    public var minimumProgressInterval: Double = 0
    /// Statuses that count as success; nil accepts any. Default 200–299 (upstream's code, not its
    /// docs, which say 200–399). A 304 answering a revalidation is handled before this check.
    public var acceptableStatusCodes: Set<Int>? = Set(200...299)
    /// MIME types (lowercased, no parameters) that count as success; nil (default) accepts any.
    public var acceptableContentTypes: Set<String>?
    /// Asked with the target of each redirect, resolved against the URL that answered, before it is
    /// followed: false fails the load with `transport(.redirectRefused, …)` and nothing connects to
    /// the target (an allow-list of sources holds on every hop, not only on the first URL). The
    /// SSRF guard still judges every address that is connected to. Default: every target.
    public var redirectPolicy: (@Sendable (URL) -> Bool)?
    /// Redirects followed before failing with `limitExceeded(.redirects)`. Default 10. Only http and
    /// https are ever followed.
    public var maxRedirects: Int = 10
    /// Response bodies larger than this fail with `limitExceeded(.responseBytes)`: checked against
    /// `Content-Length` first, then while receiving (chunked or lying servers). Default 100 MiB.
    public var maxResponseBytes: Int64 = 100 << 20
    /// A transfer slower than `lowSpeedLimit` bytes/s for `lowSpeedTime` seconds fails with
    /// `transport(.timedOut)`: drops stalled or trickling servers early. Default 1 byte/s for 15 s
    /// (i.e. only a full stall); 0 switches it off.
    public var lowSpeedLimit: Int = 1
    public var lowSpeedTime: Double = 15
    /// PEM file of certificate authorities to trust instead of the system's.
    public var caBundlePath: String?
    /// Basic-auth credentials for every request (the context key `.httpCredentials` overrides).
    public var credentials: HTTPCredentials?
    /// Headers added to every request before the request modifier runs. `Accept` and `User-Agent`
    /// are filled in when absent (see `HTTPLoader.defaultAcceptHeader`).
    public var headers: [String: String] = [:]
    public var requestModifier: HTTPRequestModifier?
    public var responseModifier: HTTPResponseModifier?
    public var decryptor: ImageDecryptor?
    public var retry: HTTPRetryPolicy = .none
    /// The SSRF guard: refuse every address the public internet does not route to — loopback,
    /// private, shared (CGNAT), link-local (cloud metadata services), unique-local, multicast,
    /// documentation, benchmarking, reserved and the rest of IANA's special-purpose ranges; IPv6
    /// forms embedding an IPv4 address (`::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`,
    /// `::a.b.c.d`) are judged as that IPv4 address. The check runs on each resolved address before
    /// libcurl opens a socket to it — every address tried, every redirect hop — so nothing, not
    /// even a TCP SYN, reaches a refused address, and a host name resolving to one (DNS rebinding
    /// included) is refused too. A refusal fails with `transport(.blockedAddress, …)`, which is
    /// permanent. Off by default: a library in an app talks to local servers legitimately. Turn it
    /// on in servers that fetch user-supplied URLs (the CLI: `--block-private-addresses`).
    /// Through a proxy (libcurl honours `http_proxy` / `https_proxy`) the address checked is the
    /// proxy's, which then has to be allowed in `allowedAddresses`, and its own policy does the rest.
    public var blocksPrivateAddresses: Bool = false
    /// Exceptions to `blocksPrivateAddresses`: addresses and CIDR ranges (`10.1.0.0/16`, `::1`)
    /// connected to even though the guard would refuse them — an internal image host, a local
    /// proxy. An IPv4 range also covers the IPv6 forms embedding its addresses. Default none.
    public var allowedAddresses: [IPAddressRange] = []
    /// With `blocksPrivateAddresses` on, also refuse this host's own interface addresses (read with
    /// `getifaddrs` for each address a transfer connects to), public ones included: through them a
    /// fetch reaches the services the server binds to every interface, which a firewall only hides
    /// from other hosts.
    /// Default on; turn it off only where images are legitimately served from this same host.
    public var blocksOwnInterfaceAddresses: Bool = true

    public init() {}

    var effectiveTimeout: Double { timeout > 0 ? timeout : 15 }
}

extension ImagePipeError.Limit {
    /// Bytes of a response body: `HTTPLoaderConfiguration.maxResponseBytes`.
    public static let responseBytes = Self(name: "responseBytes", setting: "HTTPLoaderConfiguration.maxResponseBytes")
    /// Redirects followed: `HTTPLoaderConfiguration.maxRedirects`.
    public static let redirects = Self(name: "redirects", setting: "HTTPLoaderConfiguration.maxRedirects")
}
