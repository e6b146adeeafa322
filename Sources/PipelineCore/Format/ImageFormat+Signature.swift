import Foundation

extension ImageFormat {
    /// A format's magic-byte test. It sees only the first and last bytes of the data (never a file
    /// name or a MIME type, which untrusted sources get wrong) and must be cheap: it runs for every
    /// download.
    public struct Signature: Sendable {
        private let test: @Sendable (SniffedBytes) -> Bool

        public init(_ test: @escaping @Sendable (SniffedBytes) -> Bool) {
            self.test = test
        }

        /// The data holds `bytes` at `offset`.
        package static func bytes(_ bytes: [UInt8], at offset: Int = 0) -> Signature {
            Signature { $0.has(bytes, at: offset) }
        }

        /// The data holds the ASCII text `text` at `offset`.
        public static func ascii(_ text: String, at offset: Int = 0) -> Signature {
            bytes(Array(text.utf8), at: offset)
        }

        public func matches(_ sniffed: SniffedBytes) -> Bool { test(sniffed) }
    }

    /// What a signature sees of the data: its first `headLength` and last `tailLength` bytes (all of
    /// them when the data is shorter).
    public struct SniffedBytes: Sendable {
        /// Enough for an ISO base media `ftyp` box with its compatible brands.
        static let headLength = 256
        /// SVG's closing tag is looked for there, as SDWebImage does.
        static let tailLength = 100

        public let head: [UInt8]
        public let tail: [UInt8]

        init(head: [UInt8], tail: [UInt8]) {
            self.head = head
            self.tail = tail
        }

        public init(_ data: some DataProtocol) {
            // Copies only the ends: `DataProtocol` may be non-contiguous and sniffing needs little.
            self.init(head: Array(data.prefix(Self.headLength)), tail: Array(data.suffix(Self.tailLength)))
        }

        /// The head holds `bytes` at `offset`.
        package func has(_ bytes: some Collection<UInt8>, at offset: Int = 0) -> Bool {
            guard offset >= 0, head.count - offset >= bytes.count else { return false }
            return head[offset..<offset + bytes.count].elementsEqual(bytes)
        }

        /// The tail contains `bytes` somewhere.
        func tailContains(_ bytes: some Collection<UInt8>) -> Bool {
            let needle = Array(bytes)
            guard !needle.isEmpty else { return true }
            guard tail.count >= needle.count else { return false }
            return (0...(tail.count - needle.count)).contains { tail[$0..<$0 + needle.count].elementsEqual(needle) }
        }
    }
}
