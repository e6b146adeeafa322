import Foundation

/// The order `fetch` starts its sources in when several run at once: local files largest first
/// (longest-processing-time-first scheduling), so the workers finish together instead of one
/// decoding the largest file alone at the end of the run; sources of unknown size (URLs, missing
/// files) before them, in the order given, since a transfer waits on the network anyway. With one
/// worker, or no more sources than workers, the order given: it changes nothing there, and lines
/// keep the order the user wrote.
enum FetchOrder {
    static func indices(of sources: [String], concurrency: Int) -> [Int] {
        guard concurrency > 1, sources.count > concurrency else { return Array(sources.indices) }
        let sizes = sources.map { localFileSize($0) ?? .max }
        return sources.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
    }

    /// The size of the regular file `source` names (a path or a `file:` URL), else nil.
    private static func localFileSize(_ source: String) -> Int? {
        guard let url = SourceParser.url(for: source), url.isFileURL else { return nil }
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}
