import Foundation
import Synchronization
import ToolSupport

/// A live progress line at the bottom of standard error: sources finished of total, bytes received,
/// images per second, failures; and, when it was shown, a closing summary (done, failed, skipped,
/// time). Drawn only when standard error is a terminal and `--json` is off; otherwise every call is
/// a no-op. Counts and drawing share one lock, so the line on screen never goes backwards.
final class ProgressBar: Sendable {
    struct Counts: Equatable, Sendable {
        var done = 0
        var failed = 0
        var skipped = 0
        var bytes: Int64 = 0
        var finished: Int { done + failed }
    }

    /// Where the bar is drawn and what time it is: the console and the clock, or a test's.
    struct Screen: Sendable {
        var columns: Int?
        var now: @Sendable () -> ContinuousClock.Instant
        /// Replaces the status line (nil removes it).
        var show: @Sendable (String?) -> Void
        /// Prints a message line under everything else.
        var print: @Sendable (String) -> Void

        static var console: Screen {
            Screen(columns: Console.stderrColumns, now: { .now }, show: { Console.showStatus($0) }, print: { Console.err($0) })
        }
    }

    private struct State {
        var counts = Counts()
        var lastDraw: ContinuousClock.Instant?
    }

    let total: Int
    let enabled: Bool
    private let screen: Screen
    private let start: ContinuousClock.Instant
    private let state = Mutex(State())

    init(total: Int, enabled: Bool, screen: Screen = .console, isTerminal: Bool = Console.stderrIsTerminal) {
        self.total = total
        self.enabled = enabled && isTerminal
        self.screen = screen
        start = screen.now()
    }

    /// Bytes a source read; redrawn at most ten times a second.
    func received(_ bytes: Int64) {
        guard enabled else { return }
        update(force: false) { $0.bytes += max(bytes, 0) }
    }

    /// One source finished, well or not.
    func finishedOne(failed: Bool) {
        guard enabled else { return }
        update(force: true) { counts in
            if failed {
                counts.failed += 1
            } else {
                counts.done += 1
            }
        }
    }

    /// Entries of a folder that were not taken (not images, subfolders without `-r`): they count
    /// in the summary, not in the total.
    func skipped(_ count: Int) {
        guard enabled, count > 0 else { return }
        update(force: false) { $0.skipped += count }
    }

    /// Removes the bar and prints the summary in its place.
    func close() {
        guard enabled else { return }
        state.withLock { state in
            screen.show(nil)
            screen.print(Self.summary(state.counts, elapsed: screen.now() - start))
        }
    }

    private func update(force: Bool, _ change: (inout Counts) -> Void) {
        state.withLock { state in
            change(&state.counts)
            let now = screen.now()
            if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return }
            state.lastDraw = now
            screen.show(Self.line(state.counts, total: total, elapsed: now - start, columns: screen.columns))
        }
    }

    /// The bar: `[=========               ] 16/40  1.2 MB  3.4 img/s  2 failed`, cut to the
    /// terminal's width (a wrapped line could not be redrawn in place).
    static func line(_ counts: Counts, total: Int, elapsed: Duration, columns: Int?) -> String {
        let width = 24
        let finished = min(counts.finished, total)
        let filled = total == 0 ? width : width * finished / total
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        let rate = Double(counts.finished) / max(seconds(elapsed), 0.001)
        var line = String(format: "[%@] %d/%d  %@  %.1f img/s", bar, counts.finished, total, bytesText(counts.bytes), rate)
        if counts.failed > 0 { line += "  \(counts.failed) failed" }
        if let columns, line.count >= columns { line = String(line.prefix(max(columns - 1, 0))) }
        return line
    }

    /// The closing line: `imagepipe: 37 done, 2 failed, 1 skipped in 4.2 s`.
    static func summary(_ counts: Counts, elapsed: Duration) -> String {
        String(format: "imagepipe: %d done, %d failed, %d skipped in %.1f s", counts.done, counts.failed, counts.skipped, seconds(elapsed))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
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
