/// An `Authorization: Bearer <secret>` header a request must carry (`secret`, `adminSecret`).
struct BearerCredential: Sendable {
    private let expected: [UInt8]

    init(secret: String) { expected = Array("Bearer \(secret)".utf8) }

    /// Compared in constant time for a given length: the time taken tells nothing of the secret.
    func matches(_ header: String?) -> Bool {
        let given = Array((header ?? "").utf8)
        var difference = given.count == expected.count ? 0 : 1
        for index in expected.indices { difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0)) }
        return difference == 0
    }
}
