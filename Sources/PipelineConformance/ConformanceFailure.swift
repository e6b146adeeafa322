import Testing

/// One broken contract: which contract, on which sample, and what was seen.
public struct ConformanceFailure: Sendable, Hashable, CustomStringConvertible {
    /// The contract's name, e.g. `"decode.truncated"`; Plugins.md lists them all.
    public let contract: String
    /// The sample (or case) it broke on.
    public let sample: String
    public let detail: String

    public init(contract: String, sample: String, detail: String) {
        self.contract = contract
        self.sample = sample
        self.detail = detail
    }

    public var description: String { "[\(contract)] \(sample): \(detail)" }
}

extension Array where Element == ConformanceFailure {
    /// Records each failure as a Swift Testing issue, so one broken contract is one failing
    /// expectation naming it. XCTest users assert the array is empty instead.
    public func recordIssues(sourceLocation: SourceLocation = #_sourceLocation) {
        for failure in self {
            Issue.record(Comment(rawValue: failure.description), sourceLocation: sourceLocation)
        }
    }
}

/// Collects failures while checks run.
struct FailureLog {
    private(set) var failures: [ConformanceFailure] = []

    mutating func fail(_ contract: String, _ sample: String, _ detail: String) {
        failures.append(ConformanceFailure(contract: contract, sample: sample, detail: detail))
    }

    mutating func expect(_ condition: Bool, _ contract: String, _ sample: String, _ detail: @autoclosure () -> String) {
        if !condition { fail(contract, sample, detail()) }
    }
}
