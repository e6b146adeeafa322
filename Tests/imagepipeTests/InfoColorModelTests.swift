import Foundation
import TestSupport
import Testing

@Suite("imagepipe info: the source's colour model")
struct InfoColorModelTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    static func corpus(_ path: String) -> String { Corpus.root.appendingPathComponent(path).path }

    @Test(
        "info names the colour model the file stores beside the pixel format it decodes to; the text line only when the pixel format does not say it",
        arguments: [
            ("jpeg/jpeg-decoder/reftest/mozilla/jpg-cmyk-1.jpg", "cmyk", "rgb8"),
            ("jpeg/jpeg-decoder/reftest/ycck.jpg", "ycck", "rgb8"),
            ("jpeg/jpeg-decoder/reftest/mozilla/jpg-gray.jpg", "gray", "gray8"),
            ("pngsuite/basn3p08.png", "palette", "rgb8"),
            ("pngsuite/basn0g08.png", "gray", "gray8"),
            ("tiff/cmyk8-lzw.tif", "cmyk", "rgb8"),
            ("tiff/palette-lzw.tif", "palette", "rgb8"),
            ("tiff/ycbcr-420-none.tif", "ycbcr", "rgb8"),
            ("tiff/gray8-miniswhite-lzw.tif", "gray", "gray8"),
        ])
    func colorModel(file: String, model: String, pixelFormat: String) async throws {
        let path = Self.corpus(file)
        let json = try await cli.run(["info", "--json", path])
        #expect(json.status == 0, "\(json.stderr)")
        let line = try #require(json.jsonLines.first)
        #expect(line["colorModel"] as? String == model && line["pixelFormat"] as? String == pixelFormat)
        // The text line notes the model only when the pixel format does not already say it.
        let text = try await cli.run(["info", path])
        let note = ["cmyk", "ycck", "palette"].contains(model) ? " (source \(model))" : ""
        #expect(text.stdout.contains(" \(pixelFormat)\(note)"), "\(text.stdout)")
        #expect(text.stdout.contains("(source") == !note.isEmpty, "\(text.stdout)")
    }

    @Test("A usual JPEG says ycbcr; a format whose coder does not say has colorModel null and no note")
    func ycbcrAndUnknown() async throws {
        let run = try await cli.run(["info", "--json", Samples.jpeg, Samples.webp])
        let lines = run.jsonLines
        #expect(lines.count == 2)
        #expect(lines.first?["colorModel"] as? String == "ycbcr")
        #expect(lines.last.map { $0.keys.contains("colorModel") && $0["colorModel"] is NSNull } == true)
        let text = try await cli.run(["info", Samples.jpeg, Samples.webp])
        #expect(!text.stdout.contains("(source"), "\(text.stdout)")
    }
}
