import Foundation
import PipelineCore

/// What `fetch`'s SOURCE arguments stand for: a URL or an image file is itself (a file that is not
/// an image is skipped with a note); a folder is the images in it, in name order, and with `-r` those of its subfolders, each with the subfolder it mirrors
/// under `-o`. What a folder holds that is not taken is skipped with a note, never an error: files
/// that are not images (judged by their first bytes, as the coders judge them), subfolders without
/// `-r`, special files, and symbolic links leading out of the folder given or to a folder (a link
/// inside it to one of its files is taken). Hidden entries (`.name`) are left out silently, as a
/// shell's `*` leaves them out, and so is the output folder when it lies inside a folder given
/// (`fetch -r . -o thumbs` run twice would otherwise take the first run's outputs).
struct FetchSources {
    struct Item: Equatable {
        /// What the pipeline loads: the argument, or a path in a folder given.
        var source: String
        /// Where under `-o` its output goes: "" for the top, else the subfolder's path
        /// ("2024/june") relative to the folder given.
        var folder: String = ""
    }

    struct Skip: Equatable {
        var path: String
        var reason: String
        var note: String { "imagepipe: \(path): skipped, \(reason)" }
    }

    var items: [Item] = []
    var skipped: [Skip] = []

    /// `isImage` reads a file's first bytes and says whether a coder knows them.
    init(_ arguments: [String], recursive: Bool, outputFolder: String? = nil, isImage: (String) -> Bool = FetchSources.startsLikeAnImage) {
        let excluded = outputFolder.flatMap(Self.realPath)
        for argument in arguments {
            guard let root = Self.folderPath(argument) else {
                // A file named directly (or by a shell's glob) that is not an image is skipped as a
                // folder's would be; URLs and what cannot be read go to the loader, which says why.
                if let file = Self.regularFilePath(argument), !isImage(file) {
                    skipped.append(Skip(path: argument, reason: "not an image"))
                } else {
                    items.append(Item(source: argument))
                }
                continue
            }
            // The folder given is followed even when it is a link; links in it may not lead out of it.
            let realRoot = Self.realPath(root) ?? root
            // Files are named as the user named the folder; a `file:` URL's as plain paths.
            let display = URL(string: argument)?.scheme?.lowercased() == "file" ? root : argument
            walk(root, display: display, folder: "", realRoot: realRoot, excluded: excluded, recursive: recursive, isImage: isImage)
        }
    }

    private mutating func walk(
        _ path: String, display: String, folder: String, realRoot: String, excluded: String?, recursive: Bool, isImage: (String) -> Bool
    ) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        } catch {
            // An unreadable folder is the one thing given that cannot be taken: the loader's error says why.
            items.append(Item(source: path, folder: folder))
            return
        }
        let prefix = display.hasSuffix("/") ? display : display + "/"
        for name in names where !name.hasPrefix(".") {
            let entry = path + "/" + name, shown = prefix + name
            switch Self.kind(of: entry, realRoot: realRoot) {
            case .file:
                if isImage(entry) {
                    items.append(Item(source: shown, folder: folder))
                } else {
                    skipped.append(Skip(path: shown, reason: "not an image"))
                }
            case .folder:
                if let excluded, Self.realPath(entry) == excluded {
                    continue
                } else if recursive {
                    let subfolder = OutputNames.safeComponent(name)
                    walk(
                        entry, display: shown, folder: folder.isEmpty ? subfolder : folder + "/" + subfolder, realRoot: realRoot,
                        excluded: excluded, recursive: true, isImage: isImage)
                } else {
                    skipped.append(Skip(path: shown, reason: "a folder (give -r to take subfolders)"))
                }
            case .skipped(let reason):
                skipped.append(Skip(path: shown, reason: reason))
            }
        }
    }

    private enum Kind {
        case file
        case folder
        case skipped(String)
    }

    /// What a folder's entry is, not following a symbolic link out of `realRoot` or to a folder
    /// (which could lead back up the tree).
    private static func kind(of path: String, realRoot: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .skipped("unreadable: \(String(cString: strerror(errno)))") }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        case S_IFLNK:
            guard let target = realPath(path), target.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/") else {
                return .skipped("a symbolic link out of the folder")
            }
            guard stat(target, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .skipped("a symbolic link to something not a file") }
            return .file
        default: return .skipped("not a regular file")
        }
    }

    /// The path of the local folder `argument` names (following a link), else nil.
    static func folderPath(_ argument: String) -> String? {
        guard let url = SourceParser.url(for: argument), url.isFileURL else { return nil }
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return url.path
    }

    /// The path of the local regular file `argument` names (following a link), else nil.
    static func regularFilePath(_ argument: String) -> String? {
        guard let url = SourceParser.url(for: argument), url.isFileURL else { return nil }
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return url.path
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Bytes read to tell an image: every registered coder recognises its format from fewer.
    static let sniffedBytes = 512

    /// Whether the file's first bytes are a known image format or one a registered coder decodes;
    /// a file that cannot be read is taken, so the loader reports why, and so is a known format no
    /// coder here decodes (the error then names the missing library).
    static func startsLikeAnImage(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return true }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: sniffedBytes) else { return true }
        return ImageFormat.detect(in: head) != .undefined || ImageCodersManager.shared.canDecode(head)
    }
}
