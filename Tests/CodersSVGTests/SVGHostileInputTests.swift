import CodersSVG
import Foundation
import PipelineCore
import TestSupport
import Testing

/// What an untrusted SVG cannot do: reach files (or the network) through images, `xi:include`,
/// external entities or stylesheets, and take unbounded time or memory through entity bombs, huge
/// element counts or huge canvases. Each is refused or drawn without it, quickly, and a refusal
/// names the setting that raises the limit.
@Suite(.dedicatedThreads)
struct SVGHostileInputTests {
    /// A folder of this test's own, where the files a document might name are written.
    let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("svg-hostile-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A 4 x 4 red PNG and an XML fragment drawing a red rectangle, on disk where a document could
    /// name them.
    func files() throws -> (png: String, fragment: String) {
        let png = path("red.png")
        try TestPNGWriter.png(width: 4, height: 4, rgba: Array([[UInt8]](repeating: [255, 0, 0, 255], count: 16).joined()), alpha: true)
            .write(to: URL(fileURLWithPath: png))
        let fragment = path("fragment.xml")
        try Data(#"<rect xmlns="http://www.w3.org/2000/svg" width="10" height="10" fill="red"/>"#.utf8).write(to: URL(fileURLWithPath: fragment))
        return (png, fragment)
    }

    func draw(_ document: String, coder: SVGCoder = SVGCoder(), options: ImageDecodeOptions = ImageDecodeOptions()) throws -> PixelBuffer {
        try coder.decode(Data(document.utf8), options: options).firstFrame
    }

    func isBlank(_ pixels: PixelBuffer) -> Bool { pixels.bytes.allSatisfy { $0 == 0 } }

    @Test("an <image> naming a file, by absolute or relative path, is not drawn")
    func fileImages() throws {
        let (png, _) = try files()
        for href in ["file://\(png)", png, "red.png", "../red.png"] {
            let document = """
                <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">\
                <image href="\(href)" width="10" height="10"/><image xlink:href="\(href)" width="10" height="10"/></svg>
                """
            #expect(isBlank(try draw(document)), "\(href)")
        }
    }

    @Test("an <image> with a data: URL is drawn: the document carries it")
    func dataImages() throws {
        let red = TestPNGWriter.png(width: 4, height: 4, rgba: Array([[UInt8]](repeating: [255, 0, 0, 255], count: 16).joined()), alpha: true)
        let document = """
            <svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">\
            <image href="data:image/png;base64,\(red.base64EncodedString())" width="4" height="4"/></svg>
            """
        #expect(Array(try draw(document).bytes.prefix(4)) == [255, 0, 0, 255])
    }

    @Test("xi:include of a file is not followed")
    func xinclude() throws {
        let (_, fragment) = try files()
        let document = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xi="http://www.w3.org/2001/XInclude" width="10" height="10">\
            <xi:include href="file://\(fragment)" parse="xml"><xi:fallback/></xi:include></svg>
            """
        #expect(isBlank(try draw(document)))
    }

    @Test("an external entity naming a file is not read")
    func externalEntity() throws {
        let (_, fragment) = try files()
        let document = """
            <?xml version="1.0"?><!DOCTYPE svg [<!ENTITY rect SYSTEM "file://\(fragment)">]>\
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">&rect;</svg>
            """
        let drawn = try? draw(document)
        #expect(drawn.map(isBlank) ?? true)
    }

    @Test("a stylesheet naming a file is not read")
    func externalStylesheet() throws {
        let css = path("red.css")
        try Data("rect { fill: red; }".utf8).write(to: URL(fileURLWithPath: css))
        let document = """
            <?xml-stylesheet href="file://\(css)" type="text/css"?>\
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">\
            <style>@import url("file://\(css)");</style><rect width="10" height="10" fill="none"/></svg>
            """
        #expect(isBlank(try draw(document)))
    }

    @Test("a billion-laughs entity is refused by libxml2's limits within seconds")
    func billionLaughs() throws {
        var entities = #"<!ENTITY lol0 "lol">"#
        for level in 1...10 {
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        let document = """
            <?xml version="1.0"?><!DOCTYPE svg [\(entities)]>\
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&lol10;</text></svg>
            """
        let start = ContinuousClock.now
        #expect(throws: ImagePipeError.self) { try draw(document) }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("a million elements are refused before parsing, naming SVGCoder.maxElements")
    func millionElements() throws {
        let document =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">"#
            + String(repeating: "<g/>", count: 1_000_000) + "</svg>"
        let start = ContinuousClock.now
        #expect(throws: ImagePipeError.limitExceeded(.svgElements, value: 100_001, maximum: 100_000)) { try draw(document) }
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect("\(ImagePipeError.limitExceeded(.svgElements, value: 100_001, maximum: 100_000))".contains("SVGCoder.maxElements"))
    }

    @Test("elements made by entity expansion stop at libxml2's or librsvg's limits within seconds")
    func elementsFromEntities() throws {
        var entities = #"<!ENTITY r0 "<rect width='1' height='1'/>">"#
        for level in 1...6 {
            entities += "<!ENTITY r\(level) \"" + String(repeating: "&r\(level - 1);", count: 10) + "\">"
        }
        let document = """
            <?xml version="1.0"?><!DOCTYPE svg [\(entities)]>\
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">&r6;</svg>
            """
        let start = ContinuousClock.now
        _ = try? draw(document)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("a document over maxDocumentBytes is refused, naming the setting")
    func documentBytes() throws {
        let document =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><!--"#
            + String(repeating: "x", count: 2_000) + "--></svg>"
        #expect(throws: ImagePipeError.limitExceeded(.svgDocumentBytes, value: document.utf8.count, maximum: 1_000)) {
            try draw(document, coder: SVGCoder(maxDocumentBytes: 1_000))
        }
    }

    @Test("a 100,000-pixel canvas at its own size is refused on maxPixels before drawing")
    func hugeCanvas() throws {
        let document = #"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="9" height="9"/></svg>"#
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 10_000_000_000, maximum: ImageDecodeOptions().maxPixels)) { try draw(document) }
        // Wide and short passes maxPixels but not cairo's side limit.
        let wide = #"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="10"><rect width="9" height="9"/></svg>"#
        #expect(throws: ImagePipeError.self) { try draw(wide) }
    }
}
