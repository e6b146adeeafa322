import ArgumentParser
import Foundation
import ImagePipe
import PipelineCore
import ToolSupport

/// `imagepipe cache stats|clear|trim`: the disk cache `fetch` uses.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, clear or trim the disk cache (trim: drop entries older than a week, then oldest first down to half the size limit).",
        discussion: """
            Only files the cache wrote are counted or removed; clear and trim refuse a folder that is not a cache \
            (exit status 1): one without a CACHEDIR.TAG unless --untagged says it is one.
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case stats, clear, trim
    }

    @Argument(help: "stats, clear or trim.")
    var action: Action

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The disk cache folder (default: $XDG_CACHE_HOME/imagepipe/default).", valueName: "dir"))
    var cacheDirectory: String?

    @Flag(name: .customLong("untagged"), help: "Clear or trim a folder without a CACHEDIR.TAG whose files all have cache entry names (a cache from before tags); the folder is tagged.")
    var untagged = false

    @OptionGroup var outputOptions: OutputOptions

    func run() async throws {
        outputOptions.bootstrapLogging()
        let directory = PipelineSetup.cacheDirectory(cacheDirectory)
        let disk = PipelineSetup.diskCache(at: directory)
        if let refusal = Self.refusal(of: action, in: disk.folderState, untagged: untagged, entryCount: { disk.totalCount }) {
            if outputOptions.json {
                var line = JSONLine()
                line.add("directory", directory.path)
                line.add("error", refusal)
                Console.out(line.text)
            }
            Console.err("imagepipe: \(directory.path): \(refusal)")
            throw ExitCode(1)
        }
        switch action {
        case .stats: break
        case .clear: disk.removeAll()
        case .trim: disk.removeExpiredAndTrim()
        }
        let (count, bytes) = (disk.totalCount, disk.totalSize)
        if outputOptions.json {
            var line = JSONLine()
            line.add("directory", directory.path)
            line.add("count", count)
            line.add("bytes", bytes)
            Console.out(line.text)
        } else {
            Console.out(TerminalEscaping.escape("\(directory.path): \(count) entries, \(ProgressBar.bytesText(Int64(bytes)))"))
        }
    }

    /// Why `action` does not run on a folder in `state`, or nil when it may. `clear` and `trim`
    /// need a cache: a folder marked with a `CACHEDIR.TAG`, or, with `untagged`, an unmarked one
    /// holding entries and nothing else (a cache from before tags). Without it an unmarked folder
    /// is refused, because entry names (32 hex digits) are names other programs use too. A missing
    /// folder, an empty unmarked one (a mistyped `--cache-dir`) or one holding other files is
    /// refused, so "removed nothing" is never reported as success. `stats` only reads: a missing or
    /// empty folder is a cache with 0 entries.
    static func refusal(of action: Action, in state: DiskCache.FolderState, untagged: Bool = false, entryCount: () -> Int) -> String? {
        let unchanged = action == .stats ? "" : "; nothing removed"
        switch state {
        case .cache:
            return nil
        case .unmarked:
            if action == .stats { return nil }
            guard entryCount() > 0 else { return "not a cache folder (no \(DiskCache.tagFileName) and no entries)\(unchanged)" }
            return untagged ? nil : "no \(DiskCache.tagFileName), so not known to be a cache folder (--untagged clears or trims it as one)\(unchanged)"
        case .missing:
            return action == .stats ? nil : "no cache here (the folder does not exist)\(unchanged)"
        case .foreign(let name):
            return "not a cache folder (no \(DiskCache.tagFileName), and it holds '\(name)', which the cache did not write)\(unchanged)"
        case .unusable(let reason):
            return "cannot hold a cache: \(reason)\(unchanged)"
        }
    }
}
