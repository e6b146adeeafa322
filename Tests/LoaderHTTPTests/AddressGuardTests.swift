import Testing

@testable import LoaderHTTP

/// The guard's classification, called directly: no address here is ever connected to.
@Suite("AddressGuard: which addresses the SSRF guard refuses")
struct AddressGuardTests {
    private func category(_ text: String) throws -> AddressGuard.Category? {
        AddressGuard.category(of: try #require(IPAddress(text), "\(text) does not parse"))
    }

    @Test(
        "IPv4: private, loopback, link-local, CGNAT, special-purpose and multicast are refused; public is not",
        arguments: [
            ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"), ("10.1.2.3", "private"), ("172.16.0.1", "private"),
            ("172.31.255.255", "private"), ("192.168.1.1", "private"), ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared (CGNAT)"), ("0.0.0.0", "unspecified"), ("0.1.2.3", "unspecified"),
            ("192.0.0.8", "IETF protocol assignment"), ("192.0.2.1", "documentation"), ("198.51.100.7", "documentation"),
            ("203.0.113.9", "documentation"), ("198.18.0.1", "benchmarking"), ("198.19.255.1", "benchmarking"),
            ("192.88.99.1", "reserved"), ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"),
            ("240.0.0.1", "reserved"), ("255.255.255.255", "reserved"),
            ("172.32.0.1", nil), ("8.8.8.8", nil), ("93.184.216.34", nil), ("100.128.0.1", nil), ("198.20.0.1", nil),
            ("192.0.1.1", nil), ("11.0.0.1", nil), ("223.255.255.255", nil),
        ] as [(String, String?)])
    func ipv4(address: String, refusedAs expected: String?) throws {
        #expect(try category(address)?.rawValue == expected)
    }

    @Test(
        "IPv6 forms embedding an IPv4 address are judged as that address",
        arguments: [
            ("::ffff:127.0.0.1", "loopback"), ("::ffff:7f00:1", "loopback"), ("::ffff:169.254.169.254", "link-local"),
            ("::127.0.0.1", "loopback"), ("::10.0.0.1", "private"),  // IPv4-compatible
            ("::ffff:0:127.0.0.1", "loopback"), ("::ffff:0:192.168.0.1", "private"),  // SIIT
            ("64:ff9b::169.254.169.254", "link-local"), ("64:ff9b::a9fe:a9fe", "link-local"),  // NAT64
            ("64:ff9b::10.0.0.1", "private"), ("64:ff9b::127.0.0.1", "loopback"),
            ("2002:7f00:1::", "loopback"), ("2002:a9fe:a9fe:1::1", "link-local"), ("2002:c0a8:101::1", "private"),  // 6to4
            ("::ffff:8.8.8.8", nil), ("::8.8.8.8", nil), ("::ffff:0:8.8.8.8", nil), ("64:ff9b::8.8.8.8", nil),
            ("2002:808:808::1", nil),
        ] as [(String, String?)])
    func embeddedIPv4(address: String, refusedAs expected: String?) throws {
        #expect(try category(address)?.rawValue == expected)
    }

    @Test(
        "IPv6 special-purpose and non-global ranges are refused; global unicast is not",
        arguments: [
            ("::1", "loopback"), ("::", "unspecified"), ("fe80::1", "link-local"), ("febf::1", "link-local"),
            ("fd00::1", "unique local"), ("fc00::1", "unique local"), ("fec0::1", "site-local"), ("ff02::1", "multicast"),
            ("100::1", "discard-only"), ("64:ff9b:1::a00:1", "local-use NAT64"), ("2001:db8::1", "documentation"),
            ("3fff::1", "documentation"), ("2001:2::1", "benchmarking"), ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
            ("2001:10::1", "IETF protocol assignment"), ("2001:1::4", "IETF protocol assignment"),
            ("5f00::1", "reserved"), ("100:0:0:1::1", "reserved"), ("4000::1", "reserved"), ("1::1", "reserved"),
            ("2606:4700::1111", nil), ("2001:4860:4860::8888", nil), ("2a00:1450::1", nil), ("2001:1::1", nil),
            ("2001:3::1", nil), ("2001:4:112::1", nil), ("2001:20::1", nil), ("2620:4f:8000::1", nil), ("3ffe::1", nil),
        ] as [(String, String?)])
    func ipv6(address: String, refusedAs expected: String?) throws {
        #expect(try category(address)?.rawValue == expected)
    }

    @Test("exceptions allow an address or range, and the IPv6 forms that embed one of its IPv4 addresses")
    func exceptions() throws {
        let policy = AddressGuard(
            allowed: ["10.0.0.0/8", "::1", "fd00::/16"].map { IPAddressRange($0)! },
            blocksOwnInterfaceAddresses: false)
        for allowed in ["10.1.2.3", "::ffff:10.1.2.3", "64:ff9b::10.0.0.1", "::1", "fd00::5"] {
            #expect(policy.refusal(for: try #require(IPAddress(allowed))) == nil, "\(allowed)")
        }
        for refused in ["172.16.0.1", "127.0.0.1", "::ffff:127.0.0.1", "::2", "fd01::5"] {
            #expect(policy.refusal(for: try #require(IPAddress(refused))) != nil, "\(refused)")
        }
    }

    @Test("this host's own public addresses are refused when the switch is on, in any embedding")
    func ownInterfaceAddresses() throws {
        let own: @Sendable () -> [IPAddress] = { [IPAddress("8.8.4.4")!, IPAddress("2a00:1450::5")!] }
        let on = AddressGuard(allowed: [], blocksOwnInterfaceAddresses: true, ownAddresses: own)
        let off = AddressGuard(allowed: [], blocksOwnInterfaceAddresses: false, ownAddresses: own)
        let allowed = AddressGuard(allowed: [IPAddressRange("8.8.4.4")!], blocksOwnInterfaceAddresses: true, ownAddresses: own)
        for text in ["8.8.4.4", "::ffff:8.8.4.4", "64:ff9b::8.8.4.4", "2a00:1450::5"] {
            let address = try #require(IPAddress(text))
            #expect(on.refusal(for: address) == .ownInterface, "\(text)")
            #expect(off.refusal(for: address) == nil, "\(text)")
        }
        #expect(allowed.refusal(for: IPAddress("8.8.4.4")!) == nil)
        #expect(on.refusal(for: IPAddress("8.8.8.8")!) == nil)
        // The real list holds at least the loopback interface.
        #expect(InterfaceAddresses.current().contains(IPAddress("127.0.0.1")!))
    }

    @Test(
        "the refusal names the address, what it is, the setting and the exception to add",
        arguments: [
            ("0.0.0.0", AddressGuard.Category.unspecified, "0.0.0.0, an unspecified address (port 80)"),
            ("fd00::1", .uniqueLocal, "fd00::1, a unique local address (port 80)"),
            ("2002:a9fe:a9fe::", .linkLocal, "2002:a9fe:a9fe::, which embeds 169.254.169.254, a link-local address (port 80)"),
            ("8.8.4.4", .ownInterface, "8.8.4.4, one of this host's own addresses (port 80)"),
        ])
    func refusalMessage(address: String, category: AddressGuard.Category, expected: String) throws {
        let error = AddressGuard.error(address: try #require(IPAddress(address)), port: 80, category: category)
        guard case .loadFailed(.blockedAddress, nil, let message) = error else {
            Issue.record("got \(error)")
            return
        }
        #expect(message.hasPrefix("transfer failed (blockedAddress): the SSRF guard refused to connect to \(expected) because HTTPLoaderConfiguration.blocksPrivateAddresses is on"))
        #expect(message.hasSuffix("add it to HTTPLoaderConfiguration.allowedAddresses (imagepipe: --allow-address \(IPAddress(address)!.effective))"))
    }

    @Test(
        "ranges parse CIDR notation strictly and print canonically",
        arguments: [
            ("10.0.0.0/8", "10.0.0.0/8"), ("10.1.2.3/8", "10.0.0.0/8"), ("127.0.0.1", "127.0.0.1"), ("::1", "::1"),
            ("fd00::/8", "fd00::/8"), ("0.0.0.0/0", "0.0.0.0/0"), ("::ffff:127.0.0.1", "::ffff:127.0.0.1"),
            ("10.0.0.0/33", nil), ("::/129", nil), ("10.0.0.0/", nil), ("10.0.0.0/+8", nil), ("10.0.0.0/8/8", nil),
            ("127.1", nil), ("localhost", nil), ("", nil), ("10.0.0.0/-1", nil), ("10.0.0.0/٨", nil),
        ] as [(String, String?)])
    func rangeParsing(text: String, canonical: String?) {
        #expect(IPAddressRange(text)?.description == canonical)
    }
}
