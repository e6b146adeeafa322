import Foundation
import PipelineCore
import Testing

@testable import ImageServer

@Suite("imgproxy's URL grammar")
struct ProcessingURLTests {
    static let formats = OutputFormats(coders: ImageServer.defaultCoders())

    func parse(_ target: String) throws(ProcessingURL.Malformed) -> ProcessingURL {
        try ProcessingURL(target: target, formats: Self.formats.named)
    }

    /// `http://example.com/images/curiosity.jpg`, URL-safe base64 without padding.
    static let encoded = "aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn"

    @Test(
        "good URLs parse into the source, the options and the format",
        arguments: [
            ("/sig/rs:fill:300:400:0/g:sm/\(encoded).png", "rs:fill:300:400:0/g:sm", "png"),
            ("/sig/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png", "rs:fill:300:400:0/g:sm", "png"),
            ("/sig/resize:fit:300:0/plain/http://example.com/images/curiosity.jpg@webp", "rs:fit:300:0:0/g:ce", "webp"),
            ("/sig/w:300/h:200/rt:force/el:1/plain/http%3A%2F%2Fexample.com%2Fimages%2Fcuriosity.jpg", "rs:force:300:200:1/g:ce", nil),
            ("/sig/s:100:50:t/gravity:noea/q:75/f:jpg/\(encoded)", "rs:fit:100:50:1/g:noea/q:75", "jpeg"),
            ("/sig/size:100/width:7/height:8/resizing_type:auto/enlarge:false/\(encoded).", "rs:auto:7:8:0/g:ce", nil),
            ("/sig/bl:2.5/rot:-90/g:fp:0.25:0.75/\(encoded).webp", "rs:fit:0:0:0/g:fp:0.25:0.75/bl:2.5/rot:270", "webp"),
            ("/sig/blur:1/rotate:450/quality:0/format:png/ext:gif/\(encoded)", "rs:fit:0:0:0/g:ce/bl:1.0/rot:90", "gif"),
            ("/sig/\(encoded)", "rs:fit:0:0:0/g:ce", nil),
            ("/sig/rs:fill::200/g:so:0:0/\(encoded)", "rs:fill:0:200:0/g:so", nil),
        ] as [(String, String, String?)])
    func goodURLs(target: String, canonical: String, format: String?) throws {
        let url = try parse(target)
        #expect(url.signature == "sig")
        #expect(url.source == "http://example.com/images/curiosity.jpg")
        #expect(url.options.canonical == canonical)
        #expect(url.options.format?.identifier == format)
        #expect(url.signedPath == String(target.dropFirst("/sig".count)))
    }

    @Test("a plain source keeps its query when percent-encoded, and an @ that starts no extension")
    func plainSourceEdges() throws {
        #expect(try parse("/_/plain/http://h/a.jpg%3Fv%3D1@png").source == "http://h/a.jpg?v=1")
        #expect(try parse("/_/plain/http://user@host/a.jpg").source == "http://user@host/a.jpg")
        #expect(try parse("/_/plain/local:///dir/a.png").source == "local:///dir/a.png")
    }

    @Test(
        "bad URLs are refused with a reason naming what is wrong",
        arguments: [
            ("/", "expected /{signature}/{options}/{source}"),
            ("/sig", "expected /{signature}/{options}/{source}"),
            ("/sig/rs:fit:10:10", "the source URL is missing"),
            ("/sig/zoom:2/\(encoded)", "unknown processing option 'zoom'"),
            ("/sig/rs:stretch:10:10/\(encoded)", "rs: unknown resizing type 'stretch'"),
            ("/sig/rs:fit:ten:10/\(encoded)", "rs: width and height must be whole numbers from 0 to 16383"),
            ("/sig/w:99999/\(encoded)", "w: width and height must be whole numbers from 0 to 16383"),
            ("/sig/w:-1/\(encoded)", "w: width and height"),
            ("/sig/rs:fit:1:2:3:4:5:6/\(encoded)", "rs: expected 1 to 5 arguments, got 7"),
            ("/sig/rs:fit:10:10:0:1/\(encoded)", "rs: extend is not supported"),
            ("/sig/el:maybe/\(encoded)", "el: 'maybe' is not a boolean"),
            ("/sig/q:101/\(encoded)", "q: quality must be a whole number from 0 to 100"),
            ("/sig/g:up/\(encoded)", "g: unknown gravity 'up'"),
            ("/sig/g:fp:2:0/\(encoded)", "g: fp takes x and y from 0 to 1"),
            ("/sig/g:ce:10:0/\(encoded)", "g: gravity offsets are not supported"),
            ("/sig/rot:45/\(encoded)", "rot: rotation must be a multiple of 90 degrees"),
            ("/sig/bl:-1/\(encoded)", "bl: blur must be a number from 0 to 100"),
            ("/sig/bl:nan/\(encoded)", "bl: blur must be a number"),
            ("/sig/f:tiff/\(encoded)", "f: unknown output format 'tiff'"),
            ("/sig/\(encoded).bmp", "unknown output format 'bmp'"),
            ("/sig/w:10/not*base64.png", "the source URL is not valid URL-safe base64"),
            ("/sig/w:10/plain/http://h/%zz@png", "the plain source URL is not valid percent-encoding"),
            ("/sig/w:10/plain/", "the plain source URL is not valid percent-encoding"),
        ])
    func badURLs(target: String, reason: String) {
        #expect {
            try parse(target)
        } throws: { error in
            (error as? ProcessingURL.Malformed)?.reason.hasPrefix(reason) == true
        }
    }

    @Test("a reason quoting the URL never carries control characters or unbounded text")
    func reasonsArePrintable() {
        let name = String(repeating: "x", count: 200) + "%0A"
        #expect {
            try parse("/sig/\("\u{1B}[31m" + name):1/\(Self.encoded)")
        } throws: { error in
            guard let reason = (error as? ProcessingURL.Malformed)?.reason else { return false }
            return !reason.contains("\u{1B}") && reason.count < 120
        }
    }
}
