import Foundation
import TestSupport

/// Runs the built `imagepipe` (beside the test binary) as a user would, capturing its output.
struct CLIRunner {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String

        /// The `--json` lines, parsed.
        var jsonLines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
        }
    }

    static var binary: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("imagepipe")
    }

    let environment: [String: String]

    /// `extraEnvironment` is added to (or replaces in) the test's own environment.
    init(cacheHome: URL, extraEnvironment: [String: String] = [:]) {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cacheHome.path
        environment.merge(extraEnvironment) { _, new in new }
        self.environment = environment
    }

    /// Runs the tool with `arguments`, in `directory` when given (else the test's own).
    func run(_ arguments: [String], in directory: URL? = nil) async throws -> Run {
        let environment = self.environment
        return try await runBlocking {
            let process = Process()
            process.executableURL = Self.binary
            if let directory { process.currentDirectoryURL = directory }
            process.arguments = arguments
            process.environment = environment
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
            let errData = Locked(Data())
            let errReader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
            errReader.start()
            let outData = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            while !errData.isSet { usleep(1000) }
            return Run(
                status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                stderr: String(decoding: errData.value, as: UTF8.self))
        }
    }
}

/// A value written once by one thread and read by another.
final class Locked: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Data
    private var written = false
    init(_ value: Data) { stored = value }
    func set(_ value: Data) {
        lock.lock()
        stored = value
        written = true
        lock.unlock()
    }
    var value: Data {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return written
    }
}

/// A temporary folder removed when the test ends.
final class TempFolder: Sendable {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-cli-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
}

enum Samples {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func path(_ name: String) -> String { root.appendingPathComponent("Examples/images/\(name)").path }
    static let png = path("badge.png"), jpeg = path("photo.jpg"), webp = path("scene.webp")
    static let gif = path("spinner.gif"), animatedWebP = path("spinner.webp")
}

extension CLIRunner {
    /// A run and the child's peak resident memory in bytes: the kernel's `ru_maxrss` for that one
    /// process, read through `wait4` (other children of the test process never count).
    struct MeasuredRun {
        let run: Run
        let peakBytes: Int
        var peakMiB: Double { Double(peakBytes) / 1_048_576 }
    }

    /// Runs the built `imagepipe` like `run`, and reads its peak resident memory (through
    /// `TestProcesses.runMeasuringPeakMemory`). A child ended by a signal gets status 128 + the
    /// signal, as shells report it.
    func runMeasuringMemory(_ arguments: [String]) async throws -> MeasuredRun {
        let environment = self.environment
        return try await runBlocking {
            let child = try TestProcesses.runMeasuringPeakMemory(Self.binary.path, arguments, environment: environment)
            let status = child.exitStatus ?? 128 + (child.signal ?? 0)
            return MeasuredRun(
                run: Run(status: status, stdout: child.standardOutput, stderr: child.standardError),
                peakBytes: child.maxResidentBytes)
        }
    }
}
