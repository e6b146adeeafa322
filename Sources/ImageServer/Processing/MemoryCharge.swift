/// What the server's in-memory tables charge to `ImageServerConfiguration.memoryLimit` beyond the
/// bytes of their keys and values: the entry, its list links and the strings' headers.
enum MemoryCharge {
    static let entryOverhead = 128

    /// The share of `memoryLimit` the source validator table may hold: a sixteenth. Its entries
    /// are a URL and a short validator each, so that is room for thousands of sources.
    static func validatorLimit(memoryLimit: Int) -> Int { memoryLimit / 16 }

    /// What one validator entry costs.
    static func validatorCost(source: String, validator: String) -> Int {
        source.utf8.count + validator.utf8.count + entryOverhead
    }
}
