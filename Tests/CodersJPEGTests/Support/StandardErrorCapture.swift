import Foundation

/// Runs a body with file descriptor 2 pointed at a temporary file and returns what was written
/// there, so tests can prove a library printed nothing.
enum StandardErrorCapture {
    static func capturing(_ body: () throws -> Void) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try FileHandle(forWritingTo: url)
        let saved = dup(2)
        fflush(nil)
        dup2(file.fileDescriptor, 2)
        defer {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
            try? file.close()
        }
        try body()
        fflush(nil)
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }
}
