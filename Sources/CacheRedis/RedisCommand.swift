import Foundation

/// One command in the protocol's wire form (RESP: an array of bulk strings), encoded once by the
/// caller so a connection's thread only appends bytes; binary-safe.
struct RedisCommand: Sendable {
    let bytes: [UInt8]

    init(_ arguments: [Data]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + arguments.reduce(0) { $0 + $1.count + 16 })
        Self.appendHeader("*", arguments.count, to: &bytes)
        for argument in arguments {
            Self.appendHeader("$", argument.count, to: &bytes)
            bytes.append(contentsOf: argument)
            bytes.append(contentsOf: [13, 10])
        }
        self.bytes = bytes
    }

    init(_ arguments: [String]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + arguments.reduce(0) { $0 + $1.utf8.count + 16 })
        Self.appendHeader("*", arguments.count, to: &bytes)
        for argument in arguments {
            Self.appendHeader("$", argument.utf8.count, to: &bytes)
            bytes.append(contentsOf: argument.utf8)
            bytes.append(contentsOf: [13, 10])
        }
        self.bytes = bytes
    }

    /// `*3\r\n` or `$5\r\n`.
    private static func appendHeader(_ kind: Unicode.Scalar, _ count: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: kind))
        bytes.append(contentsOf: String(count).utf8)
        bytes.append(contentsOf: [13, 10])
    }
}
