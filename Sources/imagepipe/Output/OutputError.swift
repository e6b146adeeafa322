/// Why an output could not be written, in words about the folder the user named.
enum OutputError: Error, CustomStringConvertible {
    case folderMissing(String)
    case notAFolder(String)
    case cannotCreateFolder(String, reason: String)
    case noFreeName(String, String)

    var description: String {
        switch self {
        case .folderMissing(let folder): "output folder '\(folder)' does not exist"
        case .notAFolder(let folder): "output folder '\(folder)' is not a folder"
        case .cannotCreateFolder(let folder, let reason): "cannot create output folder '\(folder)': \(reason)"
        case .noFreeName(let folder, let name): "no free name for '\(name)' in output folder '\(folder)'"
        }
    }
}
