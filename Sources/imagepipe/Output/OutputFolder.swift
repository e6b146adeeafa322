import Foundation
import PipelineCore
import Synchronization

/// The folder `fetch -o` writes into. No two outputs of a run share a file, and no output replaces
/// a file someone else made while the run was going: each name is claimed with `O_EXCL` (an empty
/// placeholder) before the image is written beside it and renamed over it, and a taken name moves
/// on to the next free `-N`. Files already there when the run started are replaced, as a second run
/// of the same command replaces the first one's outputs.
final class OutputFolder: Sendable {
    let url: URL
    /// `url.path`: output paths are made from it by appending, not through `URL` once per file.
    private let path: String
    /// The folder as the user spelled it, for messages.
    let shownAs: String
    /// Names in the folder when the run started: earlier outputs, replaced when a source claims them.
    private let earlierNames: Set<String>
    /// Stems `OutputNames` gave the run's sources: a `-N` fallback never takes one of them.
    private let assignedStems: Set<String>
    /// Names this run has claimed.
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
        earlierNames = Set((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
    }

    /// Writes `data` as `stem.fileExtension`, or the first free `stem-N.fileExtension`; returns
    /// the path it went to.
    func write(_ data: Data, stem: String, fileExtension: String) throws -> String {
        for suffix in 1...Self.maxAttempts {
            let candidate = suffix == 1 ? stem : "\(stem)-\(suffix)"
            if suffix > 1 && assignedStems.contains(candidate) { continue }
            let name = candidate + "." + fileExtension
            guard let claim = try self.claim(name) else { continue }
            let file = path + "/" + name
            do {
                // The claim has just found the folder there.
                try ImageOutput.write(data, path: file, folder: path)
            } catch {
                if claim == .placeholder { unlink(file) }
                throw error
            }
            return file
        }
        throw OutputError.noFreeName(shownAs, stem + "." + fileExtension)
    }

    private enum Claim { case placeholder, earlierFile }

    /// Takes `name` for this run: a new empty file made with `O_EXCL`, or a file that was there
    /// before the run. Nil when the name is this run's already or someone else's.
    private func claim(_ name: String) throws -> Claim? {
        let path = self.path + "/" + name
        return try claimed.withLock { claimed throws -> Claim? in
            guard !claimed.contains(name) else { return nil }
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 {
                close(fd)
                claimed.insert(name)
                return .placeholder
            }
            switch errno {
            case EEXIST:
                guard earlierNames.contains(name), Self.isReplaceable(path) else { return nil }
                claimed.insert(name)
                return .earlierFile
            case ENOENT, ENOTDIR:
                throw OutputError.folderMissing(shownAs)
            case let code:
                throw ImagePipeError.fileSystem(path: path, reason: String(cString: strerror(code)))
            }
        }
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
