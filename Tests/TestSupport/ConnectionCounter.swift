import Foundation
import PipelineConformance
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Listening sockets on loopback addresses, all on one port, that count every TCP connection a
/// client completes with them — what an SSRF test needs to show that not even a handshake
/// happened. Nothing is ever answered: `count()` takes each waiting connection off the queue,
/// closes it (the client sees the connection drop) and adds it to the total.
public final class ConnectionCounter: Sendable {
    public let port: UInt16
    private let listeners: [Int32]
    private let total = Mutex(0)

    /// Listens on each of `hosts` (numeric IPv4 or IPv6 loopback addresses) at one free port.
    public init(hosts: [String] = ["127.0.0.1"]) throws {
        for _ in 0..<20 {
            var opened: [Int32] = []
            var port: UInt16 = 0
            for host in hosts {
                guard let fd = Self.listen(host: host, port: &port) else { break }
                opened.append(fd)
            }
            if opened.count == hosts.count {
                listeners = opened
                self.port = port
                return
            }
            opened.forEach { close($0) }  // The port was taken on a later address: try another.
        }
        throw TestServerError.socket(errno)
    }

    deinit { listeners.forEach { close($0) } }

    /// Connections completed with any of the addresses so far.
    public func count() -> Int {
        total.withLock { total in
            for listener in listeners {
                while true {
                    let fd = accept(listener, nil, nil)
                    guard fd >= 0 else { break }
                    close(fd)
                    total += 1
                }
            }
            return total
        }
    }

    /// A non-blocking listener on `host` at `port`, or at a free port written back when 0.
    private static func listen(host: String, port: inout UInt16) -> Int32? {
        var storage = sockaddr_storage()
        let length: Int
        let family: Int32
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = AF_INET
            length = MemoryLayout<sockaddr_in>.size
            withUnsafeMutableBytes(of: &storage) {
                $0.storeBytes(of: sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian, sin_addr: v4, sin_zero: (0, 0, 0, 0, 0, 0, 0, 0)), as: sockaddr_in.self)
            }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = AF_INET6
            length = MemoryLayout<sockaddr_in6>.size
            withUnsafeMutableBytes(of: &storage) {
                $0.storeBytes(of: sockaddr_in6(sin6_family: sa_family_t(AF_INET6), sin6_port: port.bigEndian, sin6_flowinfo: 0, sin6_addr: v6, sin6_scope_id: 0), as: sockaddr_in6.self)
            }
        } else {
            return nil
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return nil }
        var yes: Int32 = 1
        // An IPv6 listener takes only IPv6 connections; mapped IPv4 ones go to the IPv4 listener.
        if family == AF_INET6 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, socklen_t(MemoryLayout<Int32>.size)) }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            return nil
        }
        if port == 0 {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            // sin_port and sin6_port sit at the same offset.
            port = UInt16(bigEndian: withUnsafeBytes(of: storage) { $0.loadUnaligned(fromByteOffset: 2, as: UInt16.self) })
        }
        return fd
    }
}
