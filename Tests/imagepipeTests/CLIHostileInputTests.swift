import Foundation
import TestSupport
import Testing

/// The hostile files of the decoders' budget, each run through the built `imagepipe` in a child
/// process whose peak memory (`ru_maxrss`) is read back: typed errors or bounded results, and
/// memory near the tool's own baseline.
@Suite("imagepipe on hostile images", .dedicatedThreads)
struct CLIHostileInputTests {
    let temp = TempFolder()

    /// The tool's own resident memory (runtime, plugins, a small decode) is about 35 MiB in a
    /// debug build; every run here must stay within this.
    static let peakLimit = 96 << 20

    /// Writes `file` as `name` and runs the tool with the arguments made from its path.
    func run(_ arguments: (String) -> [String], file: Data, name: String) throws -> TestProcesses.PeakMemoryRun {
        let path = temp.path(name)
        try file.write(to: URL(fileURLWithPath: path))
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = temp.path("xdg")
        return try TestProcesses.runMeasuringPeakMemory(CLIRunner.binary.path, arguments(path), environment: environment)
    }

    func info(_ file: Data, name: String) throws -> TestProcesses.PeakMemoryRun {
        try run({ ["info", $0] }, file: file, name: name)
    }

    @Test("info on a 57-byte PNG declaring a 2 GiB text chunk fails as truncated without the gigabyte")
    func hugeChunk() throws {
        for type in ["iTXt", "zTXt", "tEXt"] {
            let result = try info(HostileImages.pngWithHugeChunk(type), name: "huge-\(type).png")
            #expect(result.exitStatus == 1, "\(result.standardError)")
            #expect(result.standardError.contains("truncated"), "\(result.standardError)")
            #expect(result.maxResidentBytes < Self.peakLimit, "\(result.maxResidentBytes) bytes")
        }
        let output = temp.path("out.webp")
        let converted = try run({ ["convert", "--thumbnail", "8x8", $0, output] }, file: HostileImages.pngWithHugeChunk("zTXt"), name: "huge.png")
        #expect(converted.exitStatus == 1, "\(converted.standardError)")
        #expect(converted.standardError.contains("truncated"), "\(converted.standardError)")
        #expect(converted.maxResidentBytes < Self.peakLimit)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("info on a PNG whose image data goes on for 64 MiB after the last row reads only the rows")
    func surplusImageData() throws {
        let file = HostileImages.pngWithSurplusImageData(width: 1000, height: 1000, surplusBytes: 64 << 20)
        let result = try info(file, name: "surplus.png")
        #expect(result.exitStatus == 0, "\(result.standardError)")
        #expect(result.maxResidentBytes < Self.peakLimit, "\(result.maxResidentBytes) bytes")
    }

    @Test("info on a progressive JPEG of thousands of scans fails at the scan limit, naming the setting")
    func endlessScans() throws {
        let result = try info(HostileImages.progressiveJPEG(width: 1024, height: 1024, scans: 20_000), name: "scans.jpg")
        #expect(result.exitStatus == 1)
        #expect(result.standardError.contains("progressiveScans limit exceeded"), "\(result.standardError)")
        #expect(result.standardError.contains("ImageDecodeOptions.maxProgressiveScans"))
        #expect(result.maxResidentBytes < Self.peakLimit, "\(result.maxResidentBytes) bytes")
    }

    @Test("info on a 100-megapixel progressive CMYK JPEG fails on decoder memory before libjpeg allocates")
    func progressiveCMYK() throws {
        let file = HostileImages.cmykJPEG(width: 10_000, height: 10_000, progressive: true, dataBytes: 781_250)
        let result = try info(file, name: "cmyk.jpg")
        #expect(result.exitStatus == 1)
        #expect(result.standardError.contains("decoderMemory limit exceeded"), "\(result.standardError)")
        #expect(result.standardError.contains("ImageDecodeOptions.maxDecoderMemory"))
        #expect(result.maxResidentBytes < Self.peakLimit, "\(result.maxResidentBytes) bytes")
    }

    /// A fuzz finding: a 32x32 grid whose tile is an overlay claiming 9362x18463, for which libheif
    /// and libde265 reached 778 MB.
    @Test("info and a thumbnail of a 1.9 KB HEIC with a nested 173-megapixel overlay fail on maxPixels")
    func nestedHEIFOverlay() throws {
        let file = try Data(contentsOf: Samples.root.appendingPathComponent("Tests/Fixtures/fuzz/heif/oom-1aa1c418fe494762bc63b80945cb5022ea435078"))
        let output = temp.path("out.png")
        let runs = [
            try info(file, name: "nested.heic"),
            try run({ ["convert", "--thumbnail", "64x64", $0, output] }, file: file, name: "nested.heic"),
        ]
        for result in runs {
            #expect(result.exitStatus == 1, "\(result.standardError)")
            #expect(result.standardError.contains("pixels limit exceeded"), "\(result.standardError)")
            #expect(result.standardError.contains("raise --max-pixels"), "\(result.standardError)")
            #expect(result.maxResidentBytes < Self.peakLimit, "\(result.maxResidentBytes) bytes")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
