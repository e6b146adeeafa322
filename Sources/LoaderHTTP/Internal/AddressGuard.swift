import PipelineCore

/// The SSRF guard (`HTTPLoaderConfiguration.blocksPrivateAddresses`): which addresses a transfer
/// may connect to. Only addresses the public internet routes to pass: IANA's special-purpose
/// ranges that are not globally reachable are refused, IPv6 forms that embed an IPv4 address are
/// judged as that address, and optionally this host's own addresses are refused too.
struct AddressGuard: Sendable {
    /// Why an address is refused, as the error message says it.
    enum Category: String, Sendable {
        case unspecified, loopback
        case linkLocal = "link-local"
        case multicast, reserved, documentation, benchmarking
        case privateUse = "private"
        case sharedAddressSpace = "shared (CGNAT)"
        case uniqueLocal = "unique local"
        case siteLocal = "site-local"
        case discardOnly = "discard-only"
        case protocolAssignment = "IETF protocol assignment"
        case teredo = "Teredo"
        case localTranslation = "local-use NAT64"
        case ownInterface

        var phrase: String {
            switch self {
            case .ownInterface: "one of this host's own addresses"
            case .unspecified, .protocolAssignment: "an \(rawValue) address"
            default: "a \(rawValue) address"
            }
        }
    }

    let allowed: [IPAddressRange]
    let blocksOwnInterfaceAddresses: Bool
    /// This host's addresses, read at every check that needs them: interfaces come and go.
    let ownAddresses: @Sendable () -> [IPAddress]

    init(
        allowed: [IPAddressRange], blocksOwnInterfaceAddresses: Bool,
        ownAddresses: @escaping @Sendable () -> [IPAddress] = InterfaceAddresses.current
    ) {
        self.allowed = allowed
        self.blocksOwnInterfaceAddresses = blocksOwnInterfaceAddresses
        self.ownAddresses = ownAddresses
    }

    /// nil when a transfer may connect to `address`; otherwise why not.
    func refusal(for address: IPAddress) -> Category? {
        if allowed.contains(where: { $0.contains(address) }) { return nil }
        if let category = Self.category(of: address) { return category }
        if blocksOwnInterfaceAddresses {
            let target = address.effective
            if ownAddresses().contains(where: { $0.effective == target }) { return .ownInterface }
        }
        return nil
    }

    /// The error a refused connection fails with: permanent, and saying how to allow the address.
    static func error(address: IPAddress, port: Int, category: Category) -> ImagePipeError {
        let effective = address.effective
        let what =
            effective == address
            ? "\(address), \(category.phrase)"
            : "\(address), which embeds \(effective), \(category.phrase)"
        return .transport(
            kind: .blockedAddress,
            message: """
                the SSRF guard refused to connect to \(what) (port \(port)) because \
                HTTPLoaderConfiguration.blocksPrivateAddresses is on; to allow it, add it to \
                HTTPLoaderConfiguration.allowedAddresses (imagepipe: --allow-address \(effective))
                """)
    }

    /// Why `address` is not publicly routable, or nil when it is.
    static func category(of address: IPAddress) -> Category? {
        switch address {
        case .v6(0): return .unspecified
        case .v6(1): return .loopback
        case .v6: break
        case .v4(let value): return ipv4Ranges.first { $0.range.contains(.v4(value)) }?.category
        }
        if let embedded = address.embeddedIPv4 { return category(of: .v4(embedded)) }
        if let category = ipv6Ranges.first(where: { $0.range.contains(address) })?.category { return category }
        if ietfProtocolAssignments.contains(address) && !globallyReachableAssignments.contains(where: { $0.contains(address) }) {
            return .protocolAssignment
        }
        return globalUnicast.contains(address) ? nil : .reserved
    }

    private struct Entry {
        let range: IPAddressRange
        let category: Category
        init(_ range: String, _ category: Category) {
            self.range = IPAddressRange(range)!
            self.category = category
        }
    }

    // IANA IPv4 and IPv6 Special-Purpose Address Registries, the entries not globally reachable.
    private static let ipv4Ranges: [Entry] = [
        Entry("0.0.0.0/8", .unspecified),  // "this network"
        Entry("10.0.0.0/8", .privateUse),
        Entry("100.64.0.0/10", .sharedAddressSpace),
        Entry("127.0.0.0/8", .loopback),
        Entry("169.254.0.0/16", .linkLocal),  // cloud metadata services live here
        Entry("172.16.0.0/12", .privateUse),
        Entry("192.0.0.0/24", .protocolAssignment),
        Entry("192.0.2.0/24", .documentation),
        Entry("192.88.99.0/24", .reserved),  // the deprecated 6to4 relay anycast
        Entry("192.168.0.0/16", .privateUse),
        Entry("198.18.0.0/15", .benchmarking),
        Entry("198.51.100.0/24", .documentation),
        Entry("203.0.113.0/24", .documentation),
        Entry("224.0.0.0/4", .multicast),
        Entry("240.0.0.0/4", .reserved),  // broadcast included
    ]

    private static let ipv6Ranges: [Entry] = [
        Entry("64:ff9b:1::/48", .localTranslation),  // where the IPv4 address sits is the operator's choice
        Entry("100::/64", .discardOnly),
        Entry("2001::/32", .teredo),  // the real endpoint is hidden in the address, reached through a relay
        Entry("2001:2::/48", .benchmarking),
        Entry("2001:db8::/32", .documentation),
        Entry("3fff::/20", .documentation),
        Entry("fc00::/7", .uniqueLocal),
        Entry("fe80::/10", .linkLocal),
        Entry("fec0::/10", .siteLocal),
        Entry("ff00::/8", .multicast),
    ]

    private static let ietfProtocolAssignments = IPAddressRange("2001::/23")!
    /// The anycast services and identifiers in `2001::/23` that the registry marks globally reachable.
    private static let globallyReachableAssignments = [
        "2001:1::1/128", "2001:1::2/128", "2001:1::3/128", "2001:3::/32", "2001:4:112::/48", "2001:20::/28", "2001:30::/28",
    ].map { IPAddressRange($0)! }
    /// Everything the internet routes to today; the rest of the IPv6 space is unassigned or special.
    private static let globalUnicast = IPAddressRange("2000::/3")!
}
