import Foundation
import PipelineConformance

#if canImport(Glibc)
import Glibc
#endif

/// Helpers that lean on tools every Debian system has (gzip, openssl) and on /proc.
public enum TestProcesses {
    /// `data` compressed by `/bin/gzip`, so tests need no zlib binding.
    public static func gzip(_ data: Data) throws -> Data {
        try run("/bin/gzip", ["-c", "-n"], input: data)
    }

    /// Runs a tool to completion and returns its standard output.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String], input: Data? = nil, directory: URL? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let inputPipe = input.map { _ in Pipe() }
        if let inputPipe { process.standardInput = inputPipe }
        try process.run()
        if let inputPipe, let input {
            inputPipe.fileHandleForWriting.write(input)
            try inputPipe.fileHandleForWriting.close()
        }
        let result = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestServerError.process("\(path) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return result
    }

    /// How a child process ended, what it wrote and the most memory it ever held.
    public struct PeakMemoryRun: Sendable {
        /// The exit status, or nil when a signal ended it.
        public let exitStatus: Int32?
        public let signal: Int32?
        public let standardOutput: String
        public let standardError: String
        /// The child's peak resident set (`ru_maxrss`), in bytes.
        public let maxResidentBytes: Int
    }

    /// Forks, execs and reaps `argv[2:]`, then writes its `ru_maxrss` (KiB) and wait status to `argv[1]`.
    private static let measuringLauncher = """
        import os, sys
        report, argv = sys.argv[1], sys.argv[2:]
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        open(report, "w").write("%d %d" % (usage.ru_maxrss, status))
        """

    /// Runs `path` with `arguments` to its end and reads its peak resident memory from `wait4`,
    /// which measures that process alone. It is started by a small Python process that forks, execs
    /// and reaps it, because on Linux exec folds the forking process's own high-water mark into the
    /// child's `ru_maxrss`: spawned from the test process directly (hundreds of MB when every suite
    /// runs in it), the child would report the test runner's peak. Output goes through files, so
    /// nothing blocks on a pipe.
    public static func runMeasuringPeakMemory(_ path: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PeakMemoryRun {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("peak-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("out").path, errPath = folder.appendingPathComponent("err").path
        let reportPath = folder.appendingPathComponent("report").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = (["python3", "-c", measuringLauncher, reportPath, path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, "python3", &actions, nil, argv, envp)
        guard spawned == 0 else { throw TestServerError.process("posix_spawnp python3 for \(path) failed: \(spawned)") }
        var launcherStatus: Int32 = 0
        while waitpid(pid, &launcherStatus, 0) < 0 {
            guard errno == EINTR else { throw TestServerError.process("waitpid failed: \(errno)") }
        }
        let report = ((try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
        guard report.count == 2 else { throw TestServerError.process("the launcher for \(path) reported nothing (status \(launcherStatus))") }
        let (peakKiB, status) = (Int(report[0]), report[1])
        let signal = status & 0x7F
        return PeakMemoryRun(
            exitStatus: signal == 0 ? (status >> 8) & 0xFF : nil, signal: signal == 0 ? nil : signal,
            standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
            maxResidentBytes: peakKiB * 1024)
    }

    /// Starts a server program with no terminal I/O in `directory` and returns once it accepts
    /// connections on 127.0.0.1:`port`; one that has not within 10 s is killed and reported.
    public static func launchServer(_ path: String, _ arguments: [String], directory: URL, port: UInt16) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard waitForListener(port: port, seconds: 10) else {
            killAndWait(process)
            throw TestServerError.process("\(path) did not start listening on \(port)")
        }
        return process
    }

    /// Kills a server outright (SIGKILL, as a crash would; some ignore SIGTERM while they wait in
    /// accept) and reaps it.
    public static func killAndWait(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether something accepts connections on 127.0.0.1:`port` within `seconds`.
    public static func waitForListener(port: UInt16, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let fd = connectLoopback(port: port)
            if fd >= 0 {
                close(fd)
                return true
            }
            usleep(25_000)
        } while Date() < deadline
        return false
    }

    /// A TCP socket connected to 127.0.0.1:`port`, or -1 with `errno` set.
    public static func connectLoopback(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            errno = error
            return -1
        }
        return fd
    }

    /// A TCP port nobody listens on right now (bound to 0, read back, released).
    public static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                _ = bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// This process's TCP sockets with `port` at either end (ESTABLISHED, CLOSE_WAIT…, listening
    /// included): the leak check. Reads /proc/self/fd for our socket inodes and /proc/net/tcp for
    /// their ports, so sockets of other tests in the same process are never counted.
    public static func openTCPSockets(port: UInt16) -> Int {
        let fdDirectory = "/proc/self/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? []
        var inodes = Set<String>()
        for name in names {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: fdDirectory + "/" + name),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(String(target.dropFirst(8).dropLast()))
        }
        let hexPort = String(format: "%04X", port)
        var count = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { continue }
                let local = fields[1].split(separator: ":").last.map(String.init)
                let remote = fields[2].split(separator: ":").last.map(String.init)
                if (local == hexPort || remote == hexPort) && inodes.contains(String(fields[9])) { count += 1 }
            }
        }
        return count
    }

    /// Open file descriptors of this process.
    public static func openFileDescriptorCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }
}
