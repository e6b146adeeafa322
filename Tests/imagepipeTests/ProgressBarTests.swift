import Foundation
import Synchronization
import Testing

@testable import imagepipe

@Suite("imagepipe fetch's progress bar")
struct ProgressBarTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// A screen that records what the bar drew, at a clock the test sets.
    final class RecordingScreen: Sendable {
        enum Event: Equatable {
            case show(String?)
            case print(String)
        }
        let events = Mutex<[Event]>([])
        let elapsed = Mutex(Duration.zero)
        let start = ContinuousClock.now

        func screen(columns: Int? = 200) -> ProgressBar.Screen {
            ProgressBar.Screen(
                columns: columns, now: { self.start + self.elapsed.withLock { $0 } },
                show: { line in self.events.withLock { $0.append(.show(line)) } },
                print: { line in self.events.withLock { $0.append(.print(line)) } })
        }

        var shown: [String] {
            events.withLock { $0.compactMap { if case .show(let line?) = $0 { line } else { nil } } }
        }
    }

    @Test("The bar shows finished of total, bytes, rate and failures, cut to the terminal's width")
    func line() {
        let counts = ProgressBar.Counts(done: 14, failed: 2, skipped: 1, bytes: 1_234_567)
        let line = ProgressBar.line(counts, total: 40, elapsed: .seconds(4), columns: 200)
        #expect(line == "[=========               ] 16/40  1.2 MB  4.0 img/s  2 failed")
        let cut = ProgressBar.line(counts, total: 40, elapsed: .seconds(4), columns: 20)
        #expect(cut.count == 19 && line.hasPrefix(cut))
    }

    @Test("The summary says done, failed, skipped and time")
    func summary() {
        let counts = ProgressBar.Counts(done: 37, failed: 2, skipped: 1)
        #expect(ProgressBar.summary(counts, elapsed: .milliseconds(4250)) == "imagepipe: 37 done, 2 failed, 1 skipped in 4.2 s")
    }

    @Test("Finished counts drawn from many tasks at once never go backwards, and close removes the bar before the summary")
    func monotonic() async {
        let recording = RecordingScreen()
        let bar = ProgressBar(total: 200, enabled: true, screen: recording.screen(), isTerminal: true)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    bar.received(1000)
                    bar.finishedOne(failed: index % 50 == 0)
                }
            }
        }
        bar.close()
        let counts = recording.shown.map { line in
            Int(line.split(separator: " ").first { $0.contains("/200") }!.split(separator: "/")[0])!
        }
        #expect(counts == counts.sorted())
        #expect(counts.last == 200)
        let events = recording.events.withLock { $0 }
        #expect(events.suffix(2) == [.show(nil), .print("imagepipe: 196 done, 4 failed, 0 skipped in 0.0 s")])
    }

    @Test("Bytes alone redraw at most ten times a second")
    func throttled() {
        let recording = RecordingScreen()
        let bar = ProgressBar(total: 2, enabled: true, screen: recording.screen(), isTerminal: true)
        for _ in 0..<5 { bar.received(10) }
        recording.elapsed.withLock { $0 = .milliseconds(150) }
        bar.received(10)
        #expect(recording.shown.count == 2)
    }

    @Test("Off the terminal nothing is drawn")
    func notATerminal() {
        let recording = RecordingScreen()
        let bar = ProgressBar(total: 2, enabled: true, screen: recording.screen(), isTerminal: false)
        bar.finishedOne(failed: false)
        bar.close()
        #expect(recording.events.withLock { $0.isEmpty })
    }

    @Test("On a terminal, an error clears the bar's line before it is printed, the bar is drawn again under it, and a summary closes the run")
    func terminal() async throws {
        let missing = temp.path("missing.png")
        let run = try await cli.runOnTerminal([
            "fetch", Samples.png, missing, Samples.jpeg, "-o", temp.path("out"), "--no-cache", "--concurrency", "1",
        ])
        #expect(run.status == 1)
        // What each line shows once the terminal has run its returns and erasures: the text after
        // the line's last carriage return.
        let shown = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.split(separator: "\r", omittingEmptySubsequences: false).last ?? "").replacingOccurrences(of: "\u{1B}[K", with: "")
        }
        let messages = run.stderr.split(separator: "\n").filter { $0.contains("imagepipe: ") }
        #expect(messages.count == 2, "\(run.stderr.debugDescription)")
        let visible = shown.filter { !$0.isEmpty }
        #expect(visible.count == 2 && visible.allSatisfy { $0.hasPrefix("imagepipe: ") }, "\(shown)")
        #expect(visible.first?.contains("missing.png") == true)
        #expect(visible.last?.hasPrefix("imagepipe: 2 done, 1 failed, 0 skipped in ") == true, "\(shown)")
        let counts = run.stderr.matches(of: /\] (\d)\/3/).map { Int($0.output.1)! }
        #expect(counts == counts.sorted() && counts.last == 3, "\(counts)")
    }
}
