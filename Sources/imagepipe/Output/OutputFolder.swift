import Foundation
import PipelineCore
import Synchronization

/// The folder `fetch -o` writes into. No two outputs of a run share a file, and no output replaces
/// a file someone else made while the run was going: a new name is taken only if it is still free
/// when the finished file is published under it (`FileIO.writeExclusively`), and a taken name moves
/// on to the next free `-N`. Files already there when the run started are replaced, as a second run
/// of the same command replaces the first one's outputs. A stem with a subfolder path in front
/// (`fetch -r`'s mirrored folders) is written in that subfolder, made when missing; an existing
/// subfolder that is a symbolic link or not a folder is never written through, so an output stays
/// inside the folder given.
final class OutputFolder: Sendable {
    let url: URL
    /// `url.path`: output paths are made from it by appending, not through `URL` once per file.
    private let path: String
    /// The folder as the user spelled it, for messages.
    let shownAs: String
    /// Names (relative paths) in the folder and the run's subfolders when the run started: earlier
    /// outputs, replaced when a source claims them.
    private let earlierNames: Set<String>
    /// Stems `OutputNames` gave the run's sources: a `-N` fallback never takes one of them.
    private let assignedStems: Set<String>
    /// Names an output of this run has claimed, written or not: no two outputs try one name.
    private let claimed = Mutex(Set<String>())

    /// Makes the folder when it is missing (parents too), as `-o` promises, and notes what is in it.
    init(path: String, assignedStems: [String]) throws(OutputError) {
        url = URL(fileURLWithPath: path).standardizedFileURL
        self.path = url.path
        shownAs = path
        self.assignedStems = Set(assignedStems)
        if let code = Self.makeFolder(url.path) {
            throw code == EEXIST ? .notAFolder(path) : .cannotCreateFolder(path, reason: String(cString: strerror(code)))
        }
        var earlier = Set((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
        for subfolder in Set(assignedStems.compactMap { Self.subfolder(of: $0) }) where Self.isRealFolder(url.path + "/" + subfolder) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path + "/" + subfolder)) ?? []
            earlier.formUnion(names.map { subfolder + "/" + $0 })
        }
        earlierNames = earlier
    }

    /// The subfolder part of a stem (`2024/june` of `2024/june/a`), nil for a stem at the top.
    private static func subfolder(of stem: String) -> String? {
        stem.lastIndex(of: "/").map { String(stem[..<$0]) }
    }

    /// Writes `data` as `stem.fileExtension`, or the first free `stem-N.fileExtension`; returns
    /// the path it went to.
    func write(_ data: Data, stem: String, fileExtension: String) throws -> String {
        var folder = path
        if let subfolder = Self.subfolder(of: stem) { folder = try makeSubfolder(subfolder) }
        for suffix in 1...Self.maxAttempts {
            let candidate = suffix == 1 ? stem : "\(stem)-\(suffix)"
            if suffix > 1 && assignedStems.contains(candidate) { continue }
            let name = candidate + "." + fileExtension
            guard claimed.withLock({ $0.insert(name).inserted }) else { continue }
            let file = path + "/" + name
            if earlierNames.contains(name), Self.isReplaceable(file) {
                try ImageOutput.write(data, path: file, folder: folder)
                return file
            }
            do {
                if try FileIO.writeExclusively(data, to: file, temporaryDirectory: folder, permissions: 0o666) { return file }
            } catch let failure as FileIO.Failure {
                if failure.code == ENOENT || failure.code == ENOTDIR { throw OutputError.folderMissing(shownAs) }
                throw ImagePipeError.fileSystem(path: file, reason: String(cString: strerror(failure.code)))
            }
        }
        throw OutputError.noFreeName(shownAs, stem + "." + fileExtension)
    }

    /// Makes `subfolder` (a relative path of safe components) inside the folder, one component at a
    /// time, refusing a component that is a symbolic link or not a folder; returns its path.
    private func makeSubfolder(_ subfolder: String) throws(OutputError) -> String {
        var partial = path, shown = shownAs
        for component in subfolder.split(separator: "/") {
            partial += "/" + component
            shown += "/" + component
            if mkdir(partial, 0o777) != 0 && errno != EEXIST {
                throw .cannotCreateFolder(shown, reason: String(cString: strerror(errno)))
            }
            var info = stat()
            guard lstat(partial, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw info.st_mode & S_IFMT == S_IFLNK ? .linkedSubfolder(shown) : .notAFolder(shown)
            }
        }
        return partial
    }

    /// A folder, not a symbolic link to one.
    private static func isRealFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// A file or symbolic link can be renamed over (a link is replaced, its target untouched); a
    /// folder or a special file keeps its name and the output takes the next one.
    private static func isReplaceable(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFREG || type == S_IFLNK
    }

    /// `mkdir -p`: nil when `path` is a folder now, else the `errno` that stopped it (`EEXIST`
    /// when `path` itself is something else).
    private static func makeFolder(_ path: String) -> Int32? {
        var partial = ""
        for component in path.split(separator: "/") {
            partial.append("/")
            partial.append(contentsOf: component)
            if mkdir(partial, 0o777) != 0 && errno != EEXIST { return errno }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return errno }
        return (info.st_mode & S_IFMT) == S_IFDIR ? nil : EEXIST
    }

    /// Names tried before giving up: a folder holding `a.png` to `a-10000.png` made by someone else.
    private static let maxAttempts = 10_000
}
