/// Why an output could not be written, in words about the folder the user named.
enum OutputError: Error, CustomStringConvertible {
    case folderMissing(String)
    case notAFolder(String)
    /// A mirrored subfolder (`fetch -r`) that is a symbolic link: outputs stay inside the folder given.
    case linkedSubfolder(String)
    case cannotCreateFolder(String, reason: String)
    case noFreeName(String, String)

    var description: String {
        switch self {
        case .folderMissing(let folder): "output folder '\(folder)' does not exist"
        case .notAFolder(let folder): "output folder '\(folder)' is not a folder"
        case .linkedSubfolder(let folder): "output folder '\(folder)' is a symbolic link; outputs are not written through it"
        case .cannotCreateFolder(let folder, let reason): "cannot create output folder '\(folder)': \(reason)"
        case .noFreeName(let folder, let name): "no free name for '\(name)' in output folder '\(folder)'"
        }
    }
}
