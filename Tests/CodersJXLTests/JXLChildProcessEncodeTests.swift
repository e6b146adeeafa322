import CodersJXL
import Foundation
import PipelineCore
import Synchronization
import TestSupport
import Testing

/// Stills over 4 megapixels are encoded by a child process that a cancellation kills: the file is
/// the one libjxl writes in the process, and a cancelled encode ends at once instead of seconds later.
@Suite(.dedicatedThreads)
struct JXLChildProcessEncodeTests {
    @Test("a still over 4 megapixels encodes to a file that decodes close to its source, as large as cjxl's")
    func largeStill() throws {
        let source = try JXLEncoderTests.pattern(2100, 2050, alpha: false)
        let data = try JXLCoder().encode(Image(source), as: .jxl, options: ImageEncodeOptions())
        let decoded = try JXLCoder().decode(data, options: ImageDecodeOptions())
        #expect(decoded.pixelSize == source.size)
        let meanError = zip(decoded.firstFrame.bytes, source.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / source.bytes.count
        #expect(meanError <= 3, "mean error \(meanError)")
        if JXLFixtures.toolsInstalled {
            let theirs = try ToolFixtures.make(
                "cjxl-2100x2050-q90-e4.jxl", tool: "cjxl",
                ["-q", "90", "-e", "4", "--quiet", try ToolFixtures.sourcePNG(width: 2100, height: 2050, alpha: false).path])
            #expect(abs(data.count - theirs.count) <= 32, "\(data.count) vs cjxl's \(theirs.count) bytes")
        }
    }

    @Test("a cancelled encode of a large still ends at once: its child process is killed and reaped")
    func cancellation() throws {
        let source = Image(try Self.stripes(width: 5000, height: 4000))
        let before = Self.childProcesses()
        let cancellation = DecodeCancellation()
        let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
        // Cancelled while the child encodes (the frame is handed to libjxl before it starts).
        let canceller = Thread {
            let start = ContinuousClock.now
            while Self.childProcesses().subtracting(before).isEmpty && ContinuousClock.now - start < .seconds(60) {
                Thread.sleep(forTimeInterval: 0.005)
            }
            Thread.sleep(forTimeInterval: 0.2)
            cancelledAt.withLock { $0 = .now }
            cancellation.cancel()
        }
        canceller.start()
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(cancellation) { _ = try JXLCoder().encode(source, as: .jxl, options: ImageEncodeOptions()) }
        }
        let after = ContinuousClock.now - (cancelledAt.withLock { $0 } ?? .now)
        // A 20 MP encode takes seconds; the child is polled every 10 ms.
        #expect(after < .milliseconds(300), "the encode ended \(after) after its cancellation")
        // Reaped on a thread of its own while the kernel frees its memory: gone soon after.
        let reapStart = ContinuousClock.now
        while !Self.childProcesses().subtracting(before).isEmpty && ContinuousClock.now - reapStart < .seconds(10) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(Self.childProcesses().subtracting(before).isEmpty, "a child process is left")
    }

    /// RGB rows of a cheap-to-make pattern that is not cheap to encode: each row a shifted copy of
    /// one row of varied bytes (a pattern made pixel by pixel takes a minute at 20 MP in debug).
    static func stripes(width: Int, height: Int) throws -> PixelBuffer {
        let row = (0..<(width * 3 + 256)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height { bytes.append(contentsOf: row[(y * 7) % 256..<(y * 7) % 256 + width * 3]) }
        return try PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes)
    }

    /// The process IDs of this process's forked children, from every thread's `/proc` entry: those
    /// named as one of its threads (a fork keeps its thread's name, even once it exits unreaped),
    /// not the servers and tools other tests start meanwhile.
    static func childProcesses() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let names = Set(tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) })
        return Set(
            tasks.flatMap { task in
                ((try? String(contentsOfFile: "/proc/self/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").map(String.init)
            }.filter { child in (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)).map(names.contains) ?? false })
    }

    @Test("a large lossless still with alpha gives every pixel back")
    func largeLossless() throws {
        let source = try JXLEncoderTests.pattern(2100, 2050, alpha: true)
        let data = try JXLCoder().encode(Image(source), as: .jxl, options: ImageEncodeOptions(lossless: true))
        #expect(try JXLCoder().decode(data, options: ImageDecodeOptions()).firstFrame.bytes == source.bytes)
    }
}
