import Foundation
import Testing

/// HEIC files made by heif-enc (libheif-examples, HEVC through x265) from `TestPNGWriter`
/// patterns at odd sizes; each is made once per test process.
public enum HEIFFixtures {
    public static let toolsInstalled = ToolFixtures.tool("heif-enc") != nil && ToolFixtures.tool("heif-convert") != nil
    public static let missingTools: Comment = "heif-enc/heif-convert (Debian libheif-examples) are not installed; make deps installs them"

    public struct Sample: Sendable, CustomTestStringConvertible {
        public let name: String
        public let width: Int
        public let height: Int
        public let alpha: Bool
        let arguments: [String]
        /// The PNG encoded, when not a `TestPNGWriter` pattern.
        var source: URL? = nil

        public var testDescription: String { name }
        public var url: URL { ToolFixtures.url(name) }

        public func data() throws -> Data {
            let source = try self.source ?? ToolFixtures.sourcePNG(width: width, height: height, alpha: alpha)
            return try ToolFixtures.make(name, tool: "heif-enc", arguments + [source.path, "-o"])
        }
    }

    public static let rgb = Sample(name: "rgb.heic", width: 37, height: 23, alpha: false, arguments: ["-q", "60"])
    public static let alpha = Sample(name: "alpha.heic", width: 31, height: 17, alpha: true, arguments: ["-q", "60"])
    /// 640x480 with a 320x240 thumbnail item.
    public static let withThumbnail = Sample(name: "thumbnailed.heic", width: 640, height: 480, alpha: false, arguments: ["-q", "50", "-t", "320"])

    /// 10 bits a sample: heif-enc keeps 16-bit PNG input deeper than 8 bits (PngSuite's basn2c16,
    /// whose licence allows any use).
    public static let tenBit = Sample(
        name: "ten-bit.heic", width: 32, height: 32, alpha: false, arguments: ["-q", "60", "-b", "10"],
        source: Corpus.root.appendingPathComponent("pngsuite/basn2c16.png"))

    public static let stills = [rgb, alpha]

    /// heif-convert's pixels for `sample`, as RGBA.
    public static func reference(_ sample: Sample) throws -> ReferencePNG.Pixels {
        _ = try sample.data()
        return try ToolFixtures.reference(tool: "heif-convert", input: sample.url)
    }
}
