import CInterruptedWrites

/// Files a command is writing under a temporary name, removed when the process is interrupted
/// (SIGINT, SIGTERM, SIGHUP) before they get their real names, so a Ctrl-C during a long
/// conversion leaves no `.tmp-…` file beside the user's. The signal then ends the process as it
/// would have (the shell sees it killed by that signal). A signal the process was started
/// ignoring stays ignored. The signals are caught from the first `watch` on (the handler is C:
/// `CInterruptedWrites`); up to 16 paths at once.
package enum InterruptedWrites {
    /// `path` is removed if the process is interrupted before `unwatch(path)`.
    package static func watch(_ path: String) { _ = ip_interrupted_writes_watch(path) }

    package static func unwatch(_ path: String) { ip_interrupted_writes_unwatch(path) }
}
