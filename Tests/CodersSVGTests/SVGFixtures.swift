import Foundation
import PipelineCore
import TestSupport
import Testing

/// SVG documents written here (shapes, gradients, opacity; no text, whose fonts differ between
/// machines) and rsvg-convert's pixels for them (Debian librsvg2-bin), made once per test process.
enum SVGFixtures {
    static let toolInstalled = ToolFixtures.tool("rsvg-convert") != nil
    static let missingTool: Comment = "rsvg-convert (Debian librsvg2-bin) is not installed; make deps installs it"

    struct Sample: Sendable, CustomTestStringConvertible {
        let name: String
        let document: String
        let width: Int
        let height: Int

        var testDescription: String { name }
        var data: Data { Data(document.utf8) }
        var size: ImageSize { ImageSize(width: width, height: height) }
    }

    static let shapes = Sample(
        name: "shapes.svg",
        document: """
            <svg xmlns="http://www.w3.org/2000/svg" width="64" height="40" viewBox="0 0 64 40">
            <rect x="2" y="2" width="30" height="20" fill="#d02030"/>
            <circle cx="44" cy="22" r="15" fill="#2050c0" fill-opacity="0.6"/>
            <path d="M4 36 L30 26 L60 38 Z" fill="none" stroke="#108020" stroke-width="2.5"/>
            </svg>
            """, width: 64, height: 40)
    static let gradient = Sample(
        name: "gradient.svg",
        document: """
            <svg xmlns="http://www.w3.org/2000/svg" width="50" height="30">
            <defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#ff8000"/>\
            <stop offset="1" stop-color="#0040ff" stop-opacity="0.3"/></linearGradient></defs>
            <rect width="50" height="30" rx="6" fill="url(#g)"/>
            </svg>
            """, width: 50, height: 30)
    /// No width or height: the viewBox gives the size.
    static let viewBoxOnly = Sample(
        name: "viewbox.svg",
        document: """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 33 21"><ellipse cx="16" cy="10" rx="15" ry="9" fill="#804020"/></svg>
            """, width: 33, height: 21)

    static let samples = [shapes, gradient, viewBoxOnly]

    /// rsvg-convert's pixels for `sample` drawn at `size` (its own size when nil), as RGBA.
    static func reference(_ sample: Sample, size: ImageSize? = nil) throws -> ReferencePNG.Pixels {
        guard let tool = ToolFixtures.tool("rsvg-convert") else { throw ToolFixtureError.missing("rsvg-convert") }
        let input = ToolFixtures.url(sample.name)
        if !FileManager.default.fileExists(atPath: input.path) { try sample.data.write(to: input, options: .atomic) }
        let output = ToolFixtures.url("\(UUID().uuidString)-\(sample.name).png")
        defer { try? FileManager.default.removeItem(at: output) }
        let sizeArguments = size.map { ["-w", "\($0.width)", "-h", "\($0.height)"] } ?? []
        try TestProcesses.run(tool, sizeArguments + [input.path, "-o", output.path])
        guard let pixels = ReferencePNG.read(output) else { throw ToolFixtureError.unreadable(output.path) }
        return pixels
    }
}
