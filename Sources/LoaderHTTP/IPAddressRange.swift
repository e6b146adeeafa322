/// An IPv4 or IPv6 address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`), or one address
/// (`127.0.0.1`, `::1`): an exception to `HTTPLoaderConfiguration.blocksPrivateAddresses`.
public struct IPAddressRange: Sendable, Hashable, CustomStringConvertible {
    let network: IPAddress
    let prefixLength: Int

    /// nil unless `text` is a numeric address, optionally followed by `/` and a prefix length
    /// (0–32 for IPv4, 0–128 for IPv6). Bits past the prefix are ignored: `10.1.2.3/8` is `10.0.0.0/8`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        let width = address.bitWidth
        var length = width
        if parts.count == 2 {
            guard parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let parsed = Int(parts[1]), (0...width).contains(parsed) else {
                return nil
            }
            length = parsed
        }
        network = address.masked(to: length)
        prefixLength = length
    }

    /// Whether `address` is in the range. An IPv4 range also holds the IPv6 forms that embed one of
    /// its addresses (`::ffff:10.0.0.1` is in `10.0.0.0/8`), since those reach the same host.
    func contains(_ address: IPAddress) -> Bool {
        if address.masked(to: prefixLength) == network { return true }
        if let embedded = address.embeddedIPv4 { return IPAddress.v4(embedded).masked(to: prefixLength) == network }
        return false
    }

    public var description: String {
        prefixLength == network.bitWidth ? network.description : "\(network)/\(prefixLength)"
    }
}

extension IPAddress {
    var bitWidth: Int {
        switch self {
        case .v4: 32
        case .v6: 128
        }
    }

    /// The first `bits` bits, the rest zero; a different family never equals it.
    func masked(to bits: Int) -> IPAddress {
        switch self {
        case .v4(let value): .v4(bits == 0 ? 0 : value & ~(UInt32.max >> UInt32(bits)))
        case .v6(let value): .v6(bits == 0 ? 0 : value & ~(UInt128.max >> UInt128(bits)))
        }
    }
}
