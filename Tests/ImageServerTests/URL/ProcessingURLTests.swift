import Foundation
import PipelineCore
import Testing

@testable import ImageServer

/// The parse rows of the spec's conformance table (`S` is the 200×100 test source).
@Suite("imgproxy's URL grammar")
struct ProcessingURLTests {
    static let source = "http://origin.test/geometry.png"
    static let presets: [String: [String]] = ["a": ["rs:fill:100:100"], "b": ["bl:2"]]

    func parse(_ target: String, presets: [String: [String]] = [:], onlyPresets: Bool = false) throws(ProcessingURL.Malformed) -> ProcessingURL {
        let path = try ImagePath(target: target.replacingOccurrences(of: "/S", with: "/" + Self.source))
        return try ProcessingURL(path: path.path, settings: .init(presets: presets, onlyPresets: onlyPresets, now: 1_700_000_000))
    }

    func options(_ target: String, presets: [String: [String]] = [:], onlyPresets: Bool = false) throws -> ProcessingOptions {
        try parse(target, presets: presets, onlyPresets: onlyPresets).options
    }

    @Test("resize, size and their arguments (rows 1, 2, 7, 8)")
    func resizing() throws {
        var o = try options("/insecure/rs:fill:300:400:0/g:sm/plain/S@png")
        #expect(o.resizingType == .fill && o.width == 300 && o.height == 400 && !o.enlarge && o.gravity.type == .smart && o.format == "png")
        o = try options("/insecure/rs:fill::300/plain/S")
        #expect(o.resizingType == .fill && o.width == 0 && o.height == 300)
        o = try options("/insecure/s:300:0:1/plain/S")
        #expect(o.width == 300 && o.enlarge)
        o = try options("/insecure/rs:fit:100:100:1:1:so:0:10/plain/S")
        #expect(o.enlarge && o.extend == .init(enabled: true, gravity: .init(type: .south, x: 0, y: 10)))
        o = try options("/insecure/rs:fill-down:300:125/rt:force/plain/S")
        #expect(o.resizingType == .force)
        o = try options("/insecure/s:10:20:1:/plain/S")
        #expect(!o.extend.enabled, "an empty extend flag leaves the rest unread")
    }

    @Test("geometry options: extend, dpr, zoom, min sizes, gravity, crop, padding, rotate, flip (rows 10-29, 37, 39)")
    func geometry() throws {
        #expect(try options("/insecure/ex:1:ce:0:0/rs:fit:300:300/plain/S@png").extend == .init(enabled: true, gravity: .init()))
        #expect(try options("/insecure/exar:1/plain/S").extendAspectRatio.enabled)
        #expect(try options("/insecure/extend_ar:1:nowe/plain/S").extendAspectRatio.gravity.type == .northWest)
        #expect(try options("/insecure/dpr:2/rs:fit:50:50/plain/S").dpr == 2)
        let zoom = try options("/insecure/z:0.5/plain/S")
        #expect(zoom.zoomX == 0.5 && zoom.zoomY == 0.5)
        let zoom2 = try options("/insecure/zoom:2:3/plain/S")
        #expect(zoom2.zoomX == 2 && zoom2.zoomY == 3)
        #expect(try options("/insecure/mw:300/min-height:20/plain/S").minWidth == 300)
        #expect(try options("/insecure/g:fp:0.5:0.5/plain/S").gravity == .init(type: .focusPoint, x: 0.5, y: 0.5))
        #expect(try options("/insecure/g:nowe:10:-0.1/plain/S").gravity == .init(type: .northWest, x: 10, y: -0.1))
        #expect(try options("/insecure/g:ce::10/plain/S").gravity == .init(type: .center, x: 0, y: 10))
        #expect(try options("/insecure/g:nowe:10:10/g:soea/plain/S").gravity == .init(type: .southEast, x: 10, y: 10), "offsets stay when only the type changes")
        #expect(try options("/insecure/c:100:100:nowe/plain/S").crop == .init(width: 100, height: 100, gravity: .init(type: .northWest)))
        #expect(try options("/insecure/c:0.5:0.5/plain/S").crop == .init(width: 0.5, height: 0.5, gravity: nil))
        #expect(try options("/insecure/pd:10/plain/S").padding == .init(top: 10, right: 10, bottom: 10, left: 10))
        #expect(try options("/insecure/pd:10:20/plain/S").padding == .init(top: 10, right: 20, bottom: 10, left: 20))
        #expect(try options("/insecure/pd:10:20:30/plain/S").padding == .init(top: 10, right: 20, bottom: 30, left: 20))
        #expect(try options("/insecure/pd::20/plain/S").padding == .init(top: 0, right: 20, bottom: 0, left: 20))
        #expect(try options("/insecure/rot:90/plain/S").rotate == 90)
        #expect(try options("/insecure/rot:-90/plain/S").rotate == 270)
        let flip = try options("/insecure/fl::1/plain/S")
        #expect(!flip.flipHorizontal && flip.flipVertical)
        #expect(try options("/insecure/t:10:ff00ff:1:0/plain/S").trim == .init(threshold: 10, color: ImageColor(red: 255, green: 0, blue: 255), equalHorizontal: true))
        #expect(try options("/insecure/t:10/t:/plain/S").trim == nil, "an empty threshold turns trim off")
    }

    @Test("colour, effects, metadata and saving options (rows 30-35, 40, 43-50)")
    func effectsAndSaving() throws {
        #expect(try options("/insecure/bg:fff/plain/S@jpg").background == .white)
        #expect(try options("/insecure/bg:255:0:0/plain/S").background == ImageColor(red: 255, green: 0, blue: 0))
        #expect(try options("/insecure/bg:fff/bg:/plain/S").background == nil)
        let wm = try options("/insecure/wm:0.5:soea:10:10:0.2/plain/S").watermark
        #expect(wm == .init(opacity: 0.5, position: .init(type: .southEast, x: 10, y: 10), scale: 0.2))
        let metadata = try options("/insecure/sm:1/kcr:0/scp:0/plain/S")
        #expect(metadata.stripMetadata && !metadata.keepCopyright && !metadata.stripColorProfile)
        let lax = try options("/insecure/sm:yes/el:/plain/S")
        #expect(!lax.stripMetadata && !lax.enlarge, "a boolean that is not one is false, not an error")
        let quality = try options("/insecure/q:0/fq:webp:50:avif:40/plain/S@webp")
        #expect(quality.quality == nil && quality.formatQuality == ["webp": 50, "avif": 40] && quality.format == "webp")
        #expect(try options("/insecure/mb:10000/plain/S@jpg").maxBytes == 10000)
        #expect(try options("/insecure/f:webp/plain/S@png").format == "png", "the extension wins over f:")
        #expect(try options("/insecure/ext:jpg/plain/S").format == "jpeg")
        let filters = try options("/insecure/bl:150/sh:0.5/pix:4/plain/S")
        #expect(filters.blur == 150 && filters.sharpen == 0.5 && filters.pixelate == 4)
    }

    @Test("request-handling options: skp, raw, cb, exp, fn, att (rows 52-58)")
    func handling() throws {
        #expect(try options("/insecure/skp:png:jpg/rs:fill:4:4/plain/S").skipProcessing == ["png", "jpeg"])
        let raw = try options("/insecure/raw:1/plain/S@bogus")
        #expect(raw.raw && raw.format == nil, "with raw the extension is not even read")
        #expect(try options("/insecure/cb:v2/plain/S").cacheBuster == "v2")
        #expect(try options("/insecure/exp:4102444800/plain/S").expires == 4_102_444_800)
        #expect(try options("/insecure/fn:Zm9v:1/plain/S").filename == "foo")
        #expect(try options("/insecure/fn:Zm9v:x/plain/S").filename == "Zm9v")
        let attachment = try options("/insecure/fn:Zm9v/att:1/plain/S@jpg")
        #expect(attachment.filename == "Zm9v" && attachment.returnAttachment)
    }

    @Test("presets: pr:, the default preset, presets-only URLs (rows 60-64)")
    func presetRows() throws {
        let both = try options("/insecure/pr:a:b/plain/S", presets: Self.presets)
        #expect(both.resizingType == .fill && both.width == 100 && both.height == 100 && both.blur == 2 && both.usedPresets == ["a", "b"])
        let withDefault = try options("/insecure/q:70/plain/S", presets: ["default": ["q:50", "bl:1"]])
        #expect(withDefault.quality == 70 && withDefault.blur == 1, "the URL wins over the default preset")
        let only = try options("/insecure/a:b/plain/S@png", presets: Self.presets, onlyPresets: true)
        #expect(only.width == 100 && only.blur == 2 && only.format == "png")
        let recursive = try options("/insecure/pr:loop/plain/S", presets: ["loop": ["pr:loop", "w:5"]])
        #expect(recursive.width == 5, "a preset met again inside itself is skipped")
    }

    @Test("sources: base64 split or padded, plain with one @, repairs of %3A and http:/ (rows 71, 72, 78, 79)")
    func sources() throws {
        let base64 = try parse("/insecure/aHR0cDovL29yaWdpbi50ZXN0L2dlb21ldHJ5LnBuZw.jpg")
        #expect(base64.source == Self.source && base64.options.format == "jpeg")
        let split = try parse("/insecure/aHR0cDovL29yaWdp/bi50ZXN0L2dlb21ldHJ5LnBuZw==.webp")
        #expect(split.source == Self.source && split.options.format == "webp")
        #expect(try options("/insecure/rs%3Afill%3A100%3A100/plain/S").width == 100)
        #expect(try parse("/insecure/rs:fill:100:100/plain/http:/origin.test/geometry.png").source == Self.source)
        #expect(try parse("/insecure/plain/local:/a.png").source == "local:///a.png")
        #expect(try parse("/insecure/plain/http://origin.test/a%40b.png@png").source == "http://origin.test/a@b.png")
        #expect(try parse("/insecure/plain/S?foo=bar").source == Self.source, "the query is cut off")
        #expect(try ImagePath(target: "/sig/w:1/plain/S?x=1").path == "/w:1/plain/S")
    }

    @Test(
        "refused URLs answer 404 (403 for security options) with a reason naming the part at fault",
        arguments: [
            ("/insecure/rs:fit:100:100:1:1:so:0:10:5/plain/S", 404, "rs: expected 1 to 8 arguments"),
            ("/insecure/ex:1:sm/plain/S", 404, "ex: unknown gravity 'sm'"),
            ("/insecure/dpr:0/plain/S", 404, "dpr: dpr must be a number over 0"),
            ("/insecure/g:fp:1.5:0.5/plain/S", 404, "g: fp x must be a number from 0 to 1"),
            ("/insecure/g:fp:0.5/plain/S", 404, "g: fp takes x and y"),
            ("/insecure/g:sm:1/plain/S", 404, "g: sm takes no offsets"),
            ("/insecure/c::100/plain/S", 404, "c: a crop width is required"),
            ("/insecure/c:100:100:/plain/S", 404, "c: unknown gravity ''"),
            ("/insecure/pd:1:2:3:4:5/plain/S", 404, "pd: expected 1 to 4 arguments"),
            ("/insecure/bg:256:0:0/plain/S", 404, "bg: each of R, G and B"),
            ("/insecure/bg:ff00/plain/S", 404, "bg: 'ff00' is not a hex colour"),
            ("/insecure/bg:1:2/plain/S", 404, "bg: expected a hex colour or R:G:B"),
            ("/insecure/t:10:zz/plain/S", 404, "t: 'zz' is not a hex colour"),
            ("/insecure/rot:45/plain/S", 404, "rot: rotation must be a multiple of 90"),
            ("/insecure/wm:0.5:fp/plain/S", 404, "wm: unknown gravity 'fp'"),
            ("/insecure/wm:1.5/plain/S", 404, "wm: opacity must be a number from 0 to 1"),
            ("/insecure/q:101/plain/S", 404, "q: quality must be a whole number from 0 to 100"),
            ("/insecure/fq:webp/plain/S", 404, "fq: formats and qualities come in pairs"),
            ("/insecure/f:JPG/plain/S", 404, "f: unknown format 'JPG'"),
            ("/insecure/plain/S@tif", 404, "extension: unknown format 'tif'"),
            ("/insecure/exp:1234567890/plain/S", 404, "the URL has expired"),
            ("/insecure/cb:a:b/plain/S", 404, "cb: expected 1 argument"),
            ("/insecure/w:-1/plain/S", 404, "w: width must be a whole number of 0 or more"),
            ("/insecure/bl:nan/plain/S", 404, "bl: sigma must be a number"),
            ("/insecure/foo:1/plain/S", 404, "unknown processing option 'foo'"),
            ("/insecure/ra:lanczos3/plain/S", 404, "unknown processing option 'ra'"),
            ("/insecure/w:100/-/h:50/plain/S", 404, "more than one . in the source"),
            ("/insecure/w:100/-/aGVsbG8", 404, "the source URL is not valid URL-safe base64"),
            ("/insecure/msr:100/plain/S", 403, "msr: security options are not allowed"),
            ("/insecure/fill/300/400/plain/S", 404, "'fill/…' is imgproxy's old basic URL format"),
            ("/insecure/aHR0cDovL29yaWdpbi50ZXN0L2dlb21ldHJ5LnBuZw.jpg.png", 404, "more than one . in the source"),
            ("/insecure/plain/http://origin.test/a@b.png@png", 404, "more than one @ in the source"),
            ("/insecure/rs:fill:100:100", 404, "the source URL is missing"),
            ("/insecure/rs:fill:100:100/", 404, "the source URL is missing"),
            ("/insecure", 404, "expected /{signature}/{options}/{source}"),
            ("/insecure/", 404, "expected /{signature}/{options}/{source}"),
            ("/insecure/w:10/plain/http://h/%zz@png", 404, "the plain source URL is not valid percent-encoding"),
            ("/insecure/pr:nope/plain/S", 404, "unknown preset 'nope'"),
        ] as [(String, Int, String)])
    func refused(target: String, status: Int, reason: String) {
        #expect {
            try parse(target, presets: Self.presets)
        } throws: { error in
            guard let error = error as? ProcessingURL.Malformed else { return false }
            return error.status == status && error.reason.hasPrefix(reason)
        }
    }

    @Test("presets-only URLs read every name of the first segment as a preset (row 64)")
    func onlyPresetsRefusesOptions() {
        #expect(throws: ProcessingURL.Malformed(reason: "unknown preset 'rs'")) {
            try parse("/insecure/rs:fit:10/plain/S", presets: Self.presets, onlyPresets: true)
        }
    }

    @Test("every option has a description, and the docs' table lists every name")
    func catalogueAndDocs() throws {
        let docs = try String(
            contentsOf: URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Sources/ImageServer/ImageServer.docc/TheService.md"), encoding: .utf8)
        #expect(ProcessingOptionCatalog.all.count == 45)
        for option in ProcessingOptionCatalog.all {
            for name in option.names { #expect(docs.contains("`\(name)`"), "\(name) is missing from TheService.md") }
        }
    }

    @Test("a reason quoting the URL never carries control characters or unbounded text")
    func reasonsArePrintable() {
        let name = String(repeating: "x", count: 200) + "%0A"
        #expect {
            try parse("/sig/\("\u{1B}[31m" + name):1/plain/S")
        } throws: { error in
            guard let reason = (error as? ProcessingURL.Malformed)?.reason else { return false }
            return !reason.contains("\u{1B}") && reason.count < 120
        }
    }
}
