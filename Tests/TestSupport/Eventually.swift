/// Waits until `condition` holds, polling every 5 ms, for at most `timeout`. Tests assert on the
/// answer (`try #require(await eventually { … })`) instead of sleeping a fixed time, so a loaded
/// machine slows them down without failing them.
///
/// The limit only matters when something is wrong: a passing test returns as soon as its condition
/// holds. It is long because the machine may be shared with builds; suites that compute or block
/// run on `.dedicatedThreads`, so the polling itself is not starved in a plain `swift test`.
public func eventually(timeout: Duration = .seconds(60), _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}
