/// Waits until `condition` holds, polling every 5 ms, for at most `timeout`. Tests assert on the
/// answer (`try #require(await eventually { … })`) instead of sleeping a fixed time, so a loaded
/// machine slows them down without failing them.
///
/// The default limit is long because it only matters when something is wrong: a passing test
/// returns as soon as its condition holds. When every suite runs in one process (`swift test`),
/// the coder suites' concurrent decodes keep both of this machine's cooperative threads busy
/// for many seconds, and a 10-second limit failed tests that had nothing wrong with them.
public func eventually(timeout: Duration = .seconds(60), _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}
