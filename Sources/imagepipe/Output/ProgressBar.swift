import Foundation
import Synchronization

/// A live progress line on standard error: items done of total, bytes received, images per second.
/// Drawn only when standard error is a terminal and `--json` is off; otherwise every call is a no-op.
final class ProgressBar: Sendable {
    private struct State {
        var done = 0
        var bytes: Int64 = 0
        var lastDraw = ContinuousClock.now - .seconds(1)
    }

    let total: Int
    let enabled: Bool
    private let start = ContinuousClock.now
    private let state = Mutex(State())

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled && Console.stderrIsTerminal
    }

    func received(_ bytes: Int64) {
        guard enabled else { return }
        state.withLock { $0.bytes += max(bytes, 0) }
        draw(force: false)
    }

    func finishedOne() {
        guard enabled else { return }
        state.withLock { $0.done += 1 }
        draw(force: true)
    }

    func close() {
        guard enabled else { return }
        draw(force: true)
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw(force: Bool) {
        let now = ContinuousClock.now
        let snapshot = state.withLock { state -> State? in
            guard force || now - state.lastDraw > .milliseconds(100) else { return nil }
            state.lastDraw = now
            return state
        }
        guard let snapshot else { return }
        let width = 24
        let filled = total == 0 ? width : width * snapshot.done / total
        let elapsed = max(Double((now - start).components.seconds) + Double((now - start).components.attoseconds) / 1e18, 0.001)
        let rate = Double(snapshot.done) / elapsed
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        let line = String(format: "\r[%@] %d/%d  %@  %.1f img/s", bar, snapshot.done, total, Self.bytesText(snapshot.bytes), rate)
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func bytesText(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
