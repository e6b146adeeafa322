import Foundation
import Testing

/// AVIF files made by avifenc (libavif-bin) from `TestPNGWriter` patterns at odd sizes. Speed 10
/// keeps making them fast; each is made once per test process.
public enum AVIFFixtures {
    public static let toolsInstalled = ToolFixtures.tool("avifenc") != nil && ToolFixtures.tool("avifdec") != nil
    public static let missingTools: Comment = "avifenc/avifdec (Debian libavif-bin) are not installed; make deps installs them"

    public struct Sample: Sendable, CustomTestStringConvertible {
        public let name: String
        public let width: Int
        public let height: Int
        public let frames: Int
        public let alpha: Bool
        let arguments: @Sendable () throws -> [String]

        public var testDescription: String { name }
        public var url: URL { ToolFixtures.url(name) }
        public func data() throws -> Data { try ToolFixtures.make(name, tool: "avifenc", arguments()) }
    }

    static func still(_ name: String, _ width: Int, _ height: Int, alpha: Bool, _ options: [String]) -> Sample {
        Sample(name: name, width: width, height: height, frames: 1, alpha: alpha) {
            ["-s", "10"] + options + [try ToolFixtures.sourcePNG(width: width, height: height, alpha: alpha).path]
        }
    }

    public static let rgb8 = still("rgb8-420.avif", 37, 23, alpha: false, ["-y", "420"])
    public static let rgb10 = still("rgb10-422.avif", 35, 21, alpha: false, ["-d", "10", "-y", "422"])
    public static let rgb12 = still("rgb12-444.avif", 33, 19, alpha: false, ["-d", "12", "-y", "444"])
    public static let alpha = still("alpha8-444.avif", 31, 17, alpha: true, ["-y", "444"])
    public static let alpha10 = still("alpha10-420.avif", 29, 15, alpha: true, ["-d", "10", "-y", "420"])
    public static let gray = still("gray8-400.avif", 27, 13, alpha: false, ["-y", "400"])
    public static let lossless = still("lossless.avif", 25, 11, alpha: true, ["-l"])

    /// Three lossless frames of 23x13 shown 40 ms, 120 ms and 5 ms (a duration players raise to 100 ms).
    public static let animated = Sample(name: "animated.avif", width: 23, height: 13, frames: 3, alpha: true) {
        ["-s", "10", "-l", "--timescale", "1000"]
            + (try (0..<3).flatMap { index in
                ["--duration", ["40", "120", "5"][index], try ToolFixtures.sourcePNG(width: 23, height: 13, alpha: true, seed: index + 1).path]
            })
    }

    public static let stills = [rgb8, rgb10, rgb12, alpha, alpha10, gray, lossless]

    /// A still stored with `irot`/`imir` (avifenc's `--irot ANGLE`, `--imir MODE`).
    public static func oriented(rotation: Int?, mirror: Int?) -> Sample {
        let name = "oriented-\(rotation.map(String.init) ?? "x")-\(mirror.map(String.init) ?? "x").avif"
        let options = (rotation.map { ["--irot", "\($0)"] } ?? []) + (mirror.map { ["--imir", "\($0)"] } ?? [])
        return still(name, 9, 5, alpha: false, options)
    }

    /// avifdec's pixels for frame `index` of `sample`, 8 bits a channel.
    public static func reference(_ sample: Sample, index: Int = 0) throws -> ReferencePNG.Pixels {
        _ = try sample.data()
        return try ToolFixtures.reference(tool: "avifdec", ["-d", "8", "--index", "\(index)"], input: sample.url)
    }
}
