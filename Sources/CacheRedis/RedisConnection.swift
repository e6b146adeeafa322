import CHiredis
import Foundation

/// One blocking hiredis connection, used by one thread at a time. Connects with the configured
/// timeout, applies the command timeout to every read and write, then sends `AUTH` and `SELECT`.
/// Commands can be pipelined: `send` several, then take one `reply()` each.
final class RedisConnection {
    /// The connection cannot be used any more (refused, timed out, closed by the server).
    struct Broken: Error, CustomStringConvertible {
        let reason: String
        /// A timeout or another connection failure (an error reply is not a `Broken`).
        var kind: RedisFaultKind = .connection
        var description: String { reason }
    }

    /// Not reused after a thrown `Broken`: hiredis contexts are not usable after an I/O error.
    private var context: UnsafeMutablePointer<redisContext>

    init(configuration: RedisCacheConfiguration) throws(Broken) {
        guard let context = redisConnectWithTimeout(configuration.host, Int32(clamping: configuration.port), Self.timeval(configuration.connectTimeout)) else {
            throw Broken(reason: "cannot allocate a hiredis context")
        }
        guard context.pointee.err == 0 else {
            let failure = Self.failure(context)
            redisFree(context)
            throw Broken(reason: "connect to \(configuration.host):\(configuration.port): \(failure.reason)", kind: failure.kind)
        }
        // From here on, deinit frees the context, also when the init throws.
        self.context = context
        guard redisSetTimeout(context, Self.timeval(configuration.commandTimeout)) == REDIS_OK else {
            throw Broken(reason: "cannot set the command timeout")
        }
        // hiredis drops its read buffer whenever it empties past 16 KB, so every larger reply would
        // allocate it again; an idle connection keeps at most this much.
        context.pointee.reader.pointee.maxbuf = Self.keptReadBuffer
        if let password = configuration.password {
            guard try command(["AUTH", password]).isOK else { throw Broken(reason: "AUTH was refused") }
        }
        if configuration.database != 0 {
            guard try command(["SELECT", String(configuration.database)]).isOK else {
                throw Broken(reason: "SELECT \(configuration.database) was refused")
            }
        }
    }

    deinit { redisFree(context) }

    static let keptReadBuffer = 1 << 20

    func command(_ arguments: [String]) throws(Broken) -> RedisReply {
        try send(CollectionOfOne(RedisCommand(arguments)))
        return try reply()
    }

    func command(_ arguments: [Data]) throws(Broken) -> RedisReply {
        try send(CollectionOfOne(RedisCommand(arguments)))
        return try reply()
    }

    /// Queues `commands` in hiredis's output buffer; the next `reply()` writes them all at once
    /// (pipelining: one write, then one reply per command, in order).
    func send(_ commands: some Sequence<RedisCommand>) throws(Broken) {
        for command in commands {
            let status = command.bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { redisAppendFormattedCommand(context, $0.baseAddress, $0.count) }
            }
            guard status == REDIS_OK else { throw Self.failure(context) }
        }
    }

    /// The next reply, after writing whatever `send` queued. A bulk string is handed over without
    /// a copy: the `Data` keeps hiredis's reply object and frees it when released.
    func reply() throws(Broken) -> RedisReply {
        var raw: UnsafeMutableRawPointer?
        guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw Self.failure(context) }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        if reply.pointee.type == REDIS_REPLY_STRING, let str = reply.pointee.str, reply.pointee.len > 0 {
            let address = UInt(bitPattern: raw)
            return .string(
                Data(
                    bytesNoCopy: UnsafeMutableRawPointer(str), count: reply.pointee.len,
                    deallocator: .custom { _, _ in
                        freeReplyObject(UnsafeMutableRawPointer(bitPattern: address))
                    }))
        }
        defer { freeReplyObject(raw) }
        return Self.copy(reply)
    }

    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        func text() -> String {
            guard let str = value.str else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: str, count: value.len), as: UTF8.self)
        }
        switch value.type {
        case REDIS_REPLY_STRING:
            guard let str = value.str else { return .string(Data()) }
            return .string(Data(bytes: str, count: value.len))
        case REDIS_REPLY_STATUS: return .status(text())
        case REDIS_REPLY_ERROR: return .error(text())
        case REDIS_REPLY_INTEGER: return .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            guard let elements = value.element else { return .array([]) }
            return .array((0..<value.elements).compactMap { index in elements[index].map(copy) })
        default: return .null
        }
    }

    /// What went wrong on `context`: hiredis reports a timeout as an I/O error whose text is that
    /// of `EAGAIN` (a read or write past `SO_RCVTIMEO` / `SO_SNDTIMEO`) or `ETIMEDOUT` (a connect);
    /// errno itself may have changed since, when hiredis closed the socket.
    private static func failure(_ context: UnsafeMutablePointer<redisContext>) -> Broken {
        let reason = errorText(context)
        let timedOut =
            context.pointee.err == REDIS_ERR_IO
            && [EAGAIN, EWOULDBLOCK, ETIMEDOUT].contains { reason.hasSuffix(String(cString: strerror($0))) }
        return Broken(reason: reason, kind: timedOut ? .timeout : .connection)
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? "connection error \(context.pointee.err)" : String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func timeval(_ duration: Duration) -> Glibc.timeval {
        let (seconds, attoseconds) = max(duration, .milliseconds(1)).components
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
