import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// Runs the `cache-stress` helper (built beside the test binary) as real processes.
@Suite("Disk cache across processes", .serialized)
struct DiskCacheCrashTests {
    let directory = TemporaryDirectory()

    static var helper: URL? {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let url = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("cache-stress")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// The helper's entry format: 8-byte little-endian length, seed, then seed + j.
    static func isWhole(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 9 else { return false }
        var count: UInt64 = 0
        for i in 0..<8 { count |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        guard count == UInt64(bytes.count) else { return false }
        for j in 9..<bytes.count where bytes[j] != bytes[8] &+ UInt8(truncatingIfNeeded: j) { return false }
        return true
    }

    struct HelperMissing: Error, CustomStringConvertible {
        var description: String { "cache-stress should be built beside the test binary" }
    }

    func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        guard let helper = Self.helper else { throw HelperMissing() }
        process.executableURL = helper
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test("A writer killed with SIGKILL at random moments leaves every entry absent or whole")
    func killedWriter() async throws {
        let keys = 40
        var killed = 0
        for round in 0..<25 {
            let writer = try launch(["write", directory.path, "\(keys)"])
            // Startup takes a few milliseconds; kill anywhere from before the first write to well
            // into a stream of writes and trims.
            let pause = useconds_t.random(in: 2_000...(round % 5 == 0 ? 150_000 : 40_000))
            try await runBlocking {
                usleep(pause)
                kill(writer.processIdentifier, SIGKILL)
                writer.waitUntilExit()
            }
            if writer.terminationReason == .uncaughtSignal { killed += 1 }

            let cache = DiskCache(directory: directory.url, configuration: DiskCache.Configuration(maxAge: nil, sizeLimit: 0, trimInterval: nil))
            for k in 0..<keys {
                if let data = cache.data(forKey: "https://example.com/\(k).png") {
                    #expect(Self.isWhole(data), "round \(round): key \(k) holds \(data.count) torn bytes")
                }
            }
            for name in directory.fileNames {
                let data = try Data(contentsOf: directory.url.appendingPathComponent(name))
                #expect(Self.isWhole(data), "round \(round): \(name) is torn")
            }
        }
        #expect(killed >= 20, "the writer should have been killed, not have exited")
        #expect(!directory.fileNames.isEmpty, "the writer should have written something in 25 rounds")
    }

    @Test("Two processes hammering one directory lose nothing and never read a torn file")
    func twoProcesses() async throws {
        let count = 300
        let a = try launch(["hammer", directory.path, "a", "\(count)"])
        let b = try launch(["hammer", directory.path, "b", "\(count)"])
        try await runBlocking {
            a.waitUntilExit()
            b.waitUntilExit()
        }
        #expect(a.terminationStatus == 0, "process a read a torn file")
        #expect(b.terminationStatus == 0, "process b read a torn file")
        let cache = DiskCache(directory: directory.url, configuration: DiskCache.Configuration(maxAge: nil, sizeLimit: 0, trimInterval: nil))
        for id in ["a", "b"] {
            for i in 0..<count {
                let data = cache.data(forKey: "own-\(id)-\(i)")
                #expect(data.map(Self.isWhole) == true, "own-\(id)-\(i) lost or torn")
            }
        }
        for i in 0..<16 { #expect(cache.data(forKey: "shared-\(i)").map(Self.isWhole) == true) }
        #expect(cache.totalCount == 2 * count + 16)
    }
}
