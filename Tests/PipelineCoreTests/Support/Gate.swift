import Foundation

/// A one-shot gate a test opens to let work go on.
final class Gate: Sendable {
    private let opened = Counter()
    func open() { opened.increment() }
    var isOpen: Bool { opened.count > 0 }
    func wait() async throws {
        while !isOpen {
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
