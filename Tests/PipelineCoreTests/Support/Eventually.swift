import Foundation

/// Waits until `condition` holds, polling, for at most `timeout`. Tests assert on the answer instead
/// of sleeping a fixed time, so a loaded machine slows them down without failing them.
func eventually(timeout: Duration = .seconds(10), _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

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
