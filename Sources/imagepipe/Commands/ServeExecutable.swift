import ArgumentParser
import Foundation
import ToolSupport

#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe serve` runs `imagepipe-serve`, installed beside the tool or in
/// `../libexec/imagepipe/`: the service's stack (Hummingbird, NIO, OpenTelemetry) would otherwise
/// be linked into every command and slow each start-up with its relocations and conformances.
/// The process is replaced, so its PID, signals and exit status are the service's.
struct ServeExecutable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: ServeSummary.abstract, discussion: "`imagepipe serve --help` lists its settings.")

    static let name = "imagepipe-serve"

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { Self.exec(arguments) }

    /// The service's arguments when the command line asks for `serve` (or its help), else nil.
    static func arguments(for commandLine: [String]) -> [String]? {
        if commandLine.first == "serve" { return Array(commandLine.dropFirst()) }
        if commandLine.count >= 2 && commandLine[0] == "help" && commandLine[1] == "serve" { return ["--help"] }
        return nil
    }

    /// Replaces this process with the service; exits 1 with a message when it cannot.
    static func exec(_ arguments: [String]) -> Never {
        guard let path = path() else {
            Console.err("imagepipe: serve: \(name) is not installed beside \(ownPath() ?? "imagepipe") or in ../libexec/imagepipe/")
            Foundation.exit(1)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        Console.err("imagepipe: serve: cannot run \(path): \(String(cString: strerror(errno)))")
        Foundation.exit(1)
    }

    static func path() -> String? {
        guard let own = ownPath() else { return nil }
        let folder = (own as NSString).deletingLastPathComponent
        let candidates = ["\(folder)/\(name)", "\((folder as NSString).deletingLastPathComponent)/libexec/imagepipe/\(name)"]
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// This executable's path, symbolic links resolved.
    static func ownPath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
