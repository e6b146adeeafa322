import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The SSRF guard's address test: loopback, private, shared (CGNAT), link-local, multicast,
/// unspecified and reserved addresses are refused; IPv4-mapped IPv6 is judged as IPv4.
enum AddressGuard {
    static func isRefused(_ text: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return isRefusedIPv4(UInt32(bigEndian: v4.s_addr))
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return true }  // Unknown form: refuse.
        let b = withUnsafeBytes(of: v6) { Array($0) }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
            return isRefusedIPv4(UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15]))
        }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return true }   // :: and ::1
        if b[0] & 0xFE == 0xFC { return true }                  // fc00::/7 unique local
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return true }  // fe80::/10 link-local
        if b[0] == 0xFF { return true }                         // ff00::/8 multicast
        return false
    }

    private static func isRefusedIPv4(_ a: UInt32) -> Bool {
        func within(_ network: UInt32, _ bits: UInt32) -> Bool {
            a & ~(UInt32.max >> bits) == network
        }
        return within(0x0000_0000, 8)      // 0.0.0.0/8 "this network"
            || within(0x0A00_0000, 8)      // 10/8
            || within(0x6440_0000, 10)     // 100.64/10 shared address space
            || within(0x7F00_0000, 8)      // 127/8 loopback
            || within(0xA9FE_0000, 16)     // 169.254/16 link-local (cloud metadata lives here)
            || within(0xAC10_0000, 12)     // 172.16/12
            || within(0xC0A8_0000, 16)     // 192.168/16
            || within(0xE000_0000, 4)      // 224/4 multicast
            || within(0xF000_0000, 4)      // 240/4 reserved and broadcast
    }
}
