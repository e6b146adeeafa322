#if canImport(Glibc)
import Glibc
#endif

/// The addresses of this host's network interfaces (`getifaddrs`): a server's own public address
/// reaches the services it binds to every interface, which its firewall only hides from others.
enum InterfaceAddresses {
    @Sendable static func current() -> [IPAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [IPAddress] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr else { continue }
            let length =
                switch Int32(address.pointee.sa_family) {
                case AF_INET: MemoryLayout<sockaddr_in>.size
                case AF_INET6: MemoryLayout<sockaddr_in6>.size
                default: 0
                }
            if length > 0, let parsed = IPAddress.socketAddress(UnsafeRawPointer(address), length: length) {
                addresses.append(parsed.address)
            }
        }
        return addresses
    }
}
