import Foundation
import PipelineCore
import TestSupport
import Testing

/// JPEG XL files made by cjxl (Debian libjxl-tools) from `TestPNGWriter` patterns and
/// `APNGWriter` animations at odd sizes, and djxl's pixels for them; made once per test process
/// in `ToolFixtures.folder`, so no JPEG XL file is stored in the repository. Effort 3 keeps making
/// them fast.
enum JXLFixtures {
    static let toolsInstalled = ToolFixtures.tool("cjxl") != nil && ToolFixtures.tool("djxl") != nil
    static let missingTools: Comment = "cjxl/djxl (Debian libjxl-tools) are not installed; make deps installs them"

    struct Sample: Sendable, CustomTestStringConvertible {
        let name: String
        let width: Int
        let height: Int
        let frames: Int
        let alpha: Bool
        let gray: Bool
        let arguments: @Sendable () throws -> [String]

        var testDescription: String { name }
        var url: URL { ToolFixtures.url(name) }
        func data() throws -> Data { try ToolFixtures.make(name, tool: "cjxl", arguments()) }
        var size: ImageSize { ImageSize(width: width, height: height) }
    }

    static func still(_ name: String, _ width: Int, _ height: Int, alpha: Bool, gray: Bool = false, _ options: [String]) -> Sample {
        Sample(name: name, width: width, height: height, frames: 1, alpha: alpha, gray: gray) {
            let source = gray ? try grayPNG(width: width, height: height) : try ToolFixtures.sourcePNG(width: width, height: height, alpha: alpha)
            return ["-e", "3", "--quiet"] + options + [source.path]
        }
    }

    static let lossy = still("lossy-d1.jxl", 37, 23, alpha: false, ["-d", "1"])
    static let lossyAlpha = still("lossy-alpha.jxl", 31, 17, alpha: true, ["-d", "2"])
    static let lossless = still("lossless.jxl", 25, 11, alpha: true, ["-d", "0"])
    static let losslessRGB = still("lossless-rgb.jxl", 29, 19, alpha: false, ["-d", "0"])
    static let gray = still("gray.jxl", 27, 13, alpha: false, gray: true, ["-d", "0"])
    /// Large enough to have several groups (256 x 256) and progressive passes.
    static let progressive = still("progressive.jxl", 600, 420, alpha: false, ["-d", "1", "-p"])

    static let stills = [lossy, lossyAlpha, lossless, losslessRGB, gray]

    /// A JPEG stored turned (EXIF orientation 6, 1200 x 1800 stored) recompressed by cjxl, which
    /// moves the orientation into the codestream.
    static let oriented = Sample(name: "oriented-6.jxl", width: 1200, height: 1800, frames: 1, alpha: false, gray: false) {
        ["--quiet", "--lossless_jpeg=1", Corpus.root.appendingPathComponent("jpeg/exif-orientation-examples/Landscape_6.jpg").path]
    }

    /// Three lossless frames of 23 x 13 shown 40 ms, 120 ms and 50 ms (the APNG says play twice).
    static let animated = Sample(name: "animated.jxl", width: 23, height: 13, frames: 3, alpha: true, gray: false) {
        ["-e", "3", "--quiet", "-d", "0", try animationAPNG().path]
    }

    static let animationDelays: [(UInt16, UInt16)] = [(40, 1000), (120, 1000), (50, 1000)]

    static func animationFrame(_ index: Int) -> [UInt8] {
        TestPNGWriter.pattern(width: 23, height: 13, alpha: true, seed: index + 1)
    }

    static func animationAPNG() throws -> URL {
        let url = ToolFixtures.url("animation-source.png")
        if !FileManager.default.fileExists(atPath: url.path) {
            let frames = (0..<3).map { APNGWriter.Frame(pixels: animationFrame($0), width: 23, height: 13, delay: animationDelays[$0]) }
            try APNGWriter.file(width: 23, height: 13, frames: frames, loops: 2).write(to: url, options: .atomic)
        }
        return url
    }

    /// An 8-bit gray PNG (a ramp), for a gray JPEG XL.
    static func grayPNG(width: Int, height: Int) throws -> URL {
        let url = ToolFixtures.url("gray-\(width)x\(height).png")
        if !FileManager.default.fileExists(atPath: url.path) {
            let pixels = (0..<width * height).map { UInt8(truncatingIfNeeded: ($0 % width) * 9 + ($0 / width) * 5) }
            let chunks = [
                APNGWriter.Chunk("IHDR", APNGWriter.be32(width) + APNGWriter.be32(height) + [8, 0, 0, 0, 0]),
                APNGWriter.Chunk("IDAT", APNGWriter.compressed(pixels, width: width, height: height, channels: 1)),
                APNGWriter.Chunk("IEND", []),
            ]
            try APNGWriter.file(chunks).write(to: url, options: .atomic)
        }
        return url
    }

    /// djxl's pixels for `sample`, as RGBA.
    static func reference(_ sample: Sample) throws -> ReferencePNG.Pixels {
        _ = try sample.data()
        return try ToolFixtures.reference(tool: "djxl", ["--quiet"], input: sample.url)
    }
}
