import ArgumentParser
import Foundation
import PipelineCore

/// `imagepipe cache stats|clear|trim`: the disk cache `fetch` uses.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, clear or trim the disk cache (trim: drop entries older than a week, then oldest first down to half the size limit)."
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case stats, clear, trim
    }

    @Argument(help: "stats, clear or trim.")
    var action: Action

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The disk cache folder (default: $XDG_CACHE_HOME/imagepipe/default).", valueName: "dir"))
    var cacheDirectory: String?

    @OptionGroup var outputOptions: OutputOptions

    func run() async throws {
        outputOptions.bootstrapLogging()
        let directory = PipelineSetup.cacheDirectory(cacheDirectory)
        let disk = DiskCache(directory: directory, configuration: DiskCache.Configuration(trimInterval: nil))
        switch action {
        case .stats: break
        case .clear: disk.removeAll()
        case .trim: disk.removeExpired()
        }
        let (count, bytes) = (disk.totalCount, disk.totalSize)
        if outputOptions.json {
            var line = JSONLine()
            line.add("directory", directory.path)
            line.add("count", count)
            line.add("bytes", bytes)
            Console.out(line.text)
        } else {
            Console.out("\(directory.path): \(count) entries, \(ProgressBar.bytesText(Int64(bytes)))")
        }
    }
}
