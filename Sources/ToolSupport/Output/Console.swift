import Foundation
import Synchronization

/// Standard output and error, written whole lines at a time from any task, and the one status line
/// (the progress bar) standard error may hold at its bottom: a message clears that line, is
/// written, and the status is drawn again under it, so no message starts in the middle of the bar.
package enum Console {
    /// Standard error is one per process: what it shows is guarded by one lock. The value is the
    /// status line on screen now, nil when there is none.
    private static let screen = Mutex<String?>(nil)

    /// Carriage return and "erase to the end of the line": the cursor back at column 0 of a blank line.
    package static let clearLine = "\r\u{1B}[K"

    package static func out(_ line: String) {
        screen.withLock { _ in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }

    /// One line on standard error, control characters escaped: what it quotes (sources, paths,
    /// reasons) can never break it into several lines or reach the terminal raw.
    package static func err(_ line: String) {
        screen.withLock { status in
            var text = status == nil ? "" : clearLine
            text += TerminalEscaping.escape(line) + "\n"
            if let status { text += status }
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// Draws `status` in place of the status line (nil removes it). `status` is the tool's own
    /// text, written raw; callers keep it shorter than the terminal is wide.
    package static func showStatus(_ status: String?) {
        screen.withLock { shown in
            guard shown != status else { return }
            let text = clearLine + (status ?? "")
            shown = status
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    package static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Columns of the terminal standard error is, when it is one and says.
    package static var stderrColumns: Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
