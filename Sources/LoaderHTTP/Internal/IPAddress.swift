import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address as one number (host byte order), so ranges are bit masks.
enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt128)

    /// Strict numeric forms only (`inet_pton`: dotted-quad IPv4, any IPv6 spelling); host names
    /// and the shorthand IPv4 spellings (`127.1`, `0x7f.1`) are not addresses here.
    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self = withUnsafeBytes(of: v6) { Self.v6(bytes: $0) }
    }

    /// The address and port of a `sockaddr_in` or `sockaddr_in6` of `length` bytes; nil for any
    /// other family or a short buffer.
    static func socketAddress(_ pointer: UnsafeRawPointer, length: Int) -> (address: IPAddress, port: UInt16)? {
        guard length >= MemoryLayout<sa_family_t>.size else { return nil }
        let family = Int32(pointer.loadUnaligned(as: sa_family_t.self))
        if family == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
            let address = pointer.loadUnaligned(as: sockaddr_in.self)
            return (.v4(UInt32(bigEndian: address.sin_addr.s_addr)), UInt16(bigEndian: address.sin_port))
        }
        if family == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
            let address = pointer.loadUnaligned(as: sockaddr_in6.self)
            return (withUnsafeBytes(of: address.sin6_addr) { v6(bytes: $0) }, UInt16(bigEndian: address.sin6_port))
        }
        return nil
    }

    private static func v6(bytes: UnsafeRawBufferPointer) -> IPAddress {
        .v6(bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) })
    }

    /// The IPv4 address an IPv6 address stands for, where it embeds one that traffic to it
    /// reaches: IPv4-mapped `::ffff:0:0/96`, SIIT `::ffff:0:0:0/96`, IPv4-compatible `::/96`,
    /// NAT64 `64:ff9b::/96` (RFC 6052) and 6to4 `2002::/16` (the relay's IPv4 address).
    var embeddedIPv4: UInt32? {
        guard case .v6(let value) = self else { return nil }
        let low32 = UInt32(truncatingIfNeeded: value)
        switch value >> 32 {
        case 0, 0xFFFF, 0xFFFF_0000, 0x0064_FF9B_0000_0000_0000_0000: return low32
        default: break
        }
        if value >> 112 == 0x2002 { return UInt32(truncatingIfNeeded: value >> 80) }
        return nil
    }

    /// The address the guard judges: the embedded IPv4 address where there is one.
    var effective: IPAddress { embeddedIPv4.map(IPAddress.v4) ?? self }

    var description: String {
        switch self {
        case .v4(let value):
            var address = in_addr(s_addr: value.bigEndian)
            return Self.text(AF_INET, &address, length: Int(INET_ADDRSTRLEN))
        case .v6(let value):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { bytes in
                for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: value >> (8 * (15 - index))) }
            }
            return Self.text(AF_INET6, &address, length: Int(INET6_ADDRSTRLEN))
        }
    }

    private static func text(_ family: Int32, _ address: UnsafeRawPointer, length: Int) -> String {
        var buffer = [UInt8](repeating: 0, count: length)
        let written = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { inet_ntop(family, address, $0.baseAddress, socklen_t(length)) != nil }
        }
        guard written else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}
