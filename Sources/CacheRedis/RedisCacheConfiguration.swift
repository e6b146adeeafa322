import Foundation

/// How a `RedisImageCache` reaches its server and what it keeps there. Every default is one a
/// server survives: short timeouts, small entries, a breaker that stops trying a dead server.
public struct RedisCacheConfiguration: Sendable, CustomStringConvertible {
    /// Host name or IP address (loopback, or a twemproxy in front of several servers).
    public var host: String
    public var port: Int
    /// Sent with `AUTH` after each connect; never printed.
    public var password: String?
    /// Chosen with `SELECT` after each connect (0 is the server's default).
    public var database: Int
    /// Put before every key, so several applications (or versions) can share one server.
    public var keyPrefix: String
    /// How long an entry lives (`PX`); nil keeps it until the server evicts it.
    public var timeToLive: Duration?
    /// Entries whose encoded bytes are larger stay in the local caches only.
    public var maxEntryBytes: Int
    /// Rendered results (`imagepipe serve`'s answers) whose bytes are larger stay in each server's
    /// own caches. 1 MiB: a thumbnail or a web-sized photo is tens to hundreds of kilobytes, and
    /// past a megabyte a value's transfer (it crosses the network on every hit and blocks the
    /// Redis thread while it is copied) starts to cost as much as the render it saves.
    public var maxResultBytes: Int
    /// Connections, each with its own thread; commands beyond them wait in a bounded queue.
    public var connections: Int
    /// Commands waiting for a connection; more answer at once as a miss.
    public var maxQueuedCommands: Int
    public var connectTimeout: Duration
    /// For each read and write on the socket; a command slower than this is a fault.
    public var commandTimeout: Duration
    /// Faults in a row that open the circuit breaker.
    public var breakerThreshold: Int
    /// How long an open breaker answers miss without trying; then one command probes the server.
    public var breakerCooldown: Duration
    /// Single-flight: how long a fetch lock lives if its holder never releases it.
    public var lockTimeToLive: Duration
    /// Single-flight: how long a waiter waits for the holder's result before fetching itself.
    public var lockMaxWait: Duration
    /// Single-flight: how often a waiter looks for the result.
    public var lockPollInterval: Duration

    public init(
        host: String = "127.0.0.1", port: Int = 6379, password: String? = nil, database: Int = 0,
        keyPrefix: String = "imagepipe:", timeToLive: Duration? = .seconds(7 * 24 * 3600),
        maxEntryBytes: Int = 4 << 20, maxResultBytes: Int = 1 << 20, connections: Int = 4, maxQueuedCommands: Int = 1024,
        connectTimeout: Duration = .milliseconds(250), commandTimeout: Duration = .milliseconds(250),
        breakerThreshold: Int = 3, breakerCooldown: Duration = .seconds(5),
        lockTimeToLive: Duration = .seconds(10), lockMaxWait: Duration = .seconds(5),
        lockPollInterval: Duration = .milliseconds(50)
    ) {
        self.host = host
        self.port = port
        self.password = password
        self.database = database
        self.keyPrefix = keyPrefix
        self.timeToLive = timeToLive
        self.maxEntryBytes = maxEntryBytes
        self.maxResultBytes = maxResultBytes
        self.connections = connections
        self.maxQueuedCommands = maxQueuedCommands
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.breakerThreshold = breakerThreshold
        self.breakerCooldown = breakerCooldown
        self.lockTimeToLive = lockTimeToLive
        self.lockMaxWait = lockMaxWait
        self.lockPollInterval = lockPollInterval
    }

    /// The server part of a `redis://[:password@]host[:port][/db]` URL (see `RedisURL`).
    public init(url: String) throws(RedisURL.ParseError) {
        let parsed = try RedisURL(parsing: url)
        self.init(host: parsed.host, port: parsed.port, password: parsed.password, database: parsed.database)
    }

    /// Where the cache points, without the password.
    public var description: String {
        "redis://\(password == nil ? "" : ":***@")\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }
}
