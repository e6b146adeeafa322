/// A `redis://[:password@]host[:port][/db]` URL, parsed strictly: no user name, query or fragment;
/// a port in 1...65535 (6379 when left out); a database number in 0...65535. The password is
/// percent-decoded and never part of an error's text.
public struct RedisURL: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var password: String?
    public var database: Int

    public init(host: String, port: Int = 6379, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.password = password
        self.database = database
    }

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, never quoting the password.
        public let reason: String
        public var description: String { "invalid Redis URL: \(reason)" }
    }

    public init(parsing text: String) throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(reason: reason) }
        let scheme = "redis://"
        guard text.lowercased().hasPrefix(scheme) else { throw fail("expected redis://[:password@]host:port[/db]") }
        var rest = Substring(text.dropFirst(scheme.count))
        guard !rest.contains(where: { $0 == "?" || $0 == "#" || $0.isWhitespace }) else {
            throw fail("no query, fragment or spaces allowed")
        }
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard userInfo.first == ":" else { throw fail("credentials must be ':password@' (no user name)") }
            guard let decoded = Self.percentDecoded(userInfo.dropFirst()), !decoded.isEmpty else {
                throw fail("the password is empty or badly percent-encoded")
            }
            password = decoded
        }
        var authority = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        }
        var host: Substring
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw fail("unclosed '[' in the host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw fail("unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
                throw fail("the host has characters a host name cannot have")
            }
        }
        guard !host.isEmpty else { throw fail("no host") }
        var port = 6379
        if let portText {
            guard let value = Self.number(portText), (1...65535).contains(value) else { throw fail("the port must be 1...65535") }
            port = value
        }
        var database = 0
        if !path.isEmpty {
            guard let value = Self.number(path), value <= 65535 else { throw fail("the database must be a number 0...65535") }
            database = value
        }
        self.host = String(host)
        self.port = port
        self.password = password
        self.database = database
    }

    /// Decimal digits only (no sign, at most 5 digits).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
