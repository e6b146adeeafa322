import CodersJPEG
import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("imagepipe EXIF and XMP")
struct CLIMetadataTests {
    let temp = TempFolder()
    var cli: CLIRunner { CLIRunner(cacheHome: temp.url.appendingPathComponent("xdg")) }

    /// An 8x4 photo stored sideways (EXIF orientation 6) with a copyright, a GPS IFD and an XMP
    /// packet, as `ext` (jpg, png or webp), written into the temporary folder.
    func taggedSource(_ ext: String) async throws -> String {
        let pixels = try PixelBuffer(width: 8, height: 4, format: .rgb8, bytes: (0..<8 * 4 * 3).map { UInt8($0 * 2) })
        let exif = MetadataFixtures.exif(orientation: 6), xmp = MetadataFixtures.xmp()
        let data: Data
        switch ext {
        case "jpg":
            data = MetadataFixtures.jpeg(try JPEGCoder().encode(Image(pixels), as: .jpeg, options: ImageEncodeOptions()), exif: exif, xmp: xmp)
        case "png":
            data = MetadataFixtures.png(try PNGCoder().encode(Image(pixels), as: .png, options: ImageEncodeOptions()), exif: exif, xmp: xmp)
        default:
            let png = temp.path("plain.png"), webP = temp.path("plain.webp")
            try PNGCoder().encode(Image(pixels), as: .png, options: ImageEncodeOptions()).write(to: URL(fileURLWithPath: png))
            _ = try await cli.run(["convert", png, webP])
            data = MetadataFixtures.webP(try Data(contentsOf: URL(fileURLWithPath: webP)), exif: exif, xmp: xmp, width: 8, height: 4)
        }
        let path = temp.path("tagged.\(ext)")
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The EXIF block a written file holds: found after its `Exif\0\0` (JPEG) or as the eXIf or
    /// EXIF chunk's payload, read without the code under test.
    func exifBlock(in file: Data) -> [UInt8]? {
        let bytes = [UInt8](file)
        for marker in ["Exif\0\0", "eXIf", "EXIF"] {
            let needle = Array(marker.utf8)
            guard bytes.count > needle.count,
                let at = (0...(bytes.count - needle.count)).first(where: { bytes[$0..<$0 + needle.count].elementsEqual(needle) })
            else { continue }
            // A WebP chunk's size follows its name; a PNG chunk's came before it.
            return Array(bytes[(at + needle.count + (marker == "EXIF" ? 4 : 0))...])
        }
        return nil
    }

    func info(_ path: String) async throws -> [String: Any] {
        let run = try await cli.run(["info", "--json", path])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(run.jsonLines.first)
    }

    @Test("By default convert writes no EXIF and no XMP, even to the source's own format", arguments: ["jpg", "png", "webp"], ["jpg", "png", "webp"])
    func stripsByDefault(from source: String, to ext: String) async throws {
        let input = try await taggedSource(source)
        let output = temp.path("out.\(ext)")
        let run = try await cli.run(["convert", input, output])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        for text in [MetadataFixtures.copyright, MetadataFixtures.gpsMarker, MetadataFixtures.xmpMarker] {
            #expect(!MetadataFixtures.contains(written, text), "\(text) in \(source) → \(ext)")
        }
        let described = try await info(output)
        #expect(described["hasExif"] as? Bool == false && described["hasXmp"] as? Bool == false)
        // Upright all the same: the orientation was applied to the pixels.
        #expect(described["width"] as? Int == 4 && described["height"] as? Int == 8 && described["orientation"] as? Int == 1)
    }

    @Test("--keep-metadata keeps the copyright and XMP, never a GPS tag, with orientation 1", arguments: ["jpg", "png", "webp"], ["jpg", "png", "webp"])
    func keepsWithoutGPS(from source: String, to ext: String) async throws {
        let input = try await taggedSource(source)
        let output = temp.path("kept.\(ext)")
        let run = try await cli.run(["convert", input, output, "--keep-metadata"])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(MetadataFixtures.contains(written, MetadataFixtures.copyright))
        #expect(MetadataFixtures.contains(written, MetadataFixtures.xmpMarker))
        #expect(!MetadataFixtures.contains(written, MetadataFixtures.gpsMarker))
        let exif = try #require(exifBlock(in: written))
        let tags = try #require(MetadataFixtures.ifd0Tags(exif))
        #expect(!tags.contains(MetadataFixtures.gpsPointerTag) && tags.contains(0x8298))
        #expect(ExifEditor.rawOrientation(in: exif) == 1)
        let described = try await info(output)
        #expect(described["hasExif"] as? Bool == true && described["hasXmp"] as? Bool == true)
        #expect(described["width"] as? Int == 4 && described["height"] as? Int == 8 && described["orientation"] as? Int == 1)
    }

    @Test("fetch keeps metadata only when asked")
    func fetch() async throws {
        let input = try await taggedSource("jpg")
        for (folder, flags) in [("plain", [String]()), ("kept", ["--keep-metadata"])] {
            let run = try await cli.run(["fetch", input, "-o", temp.path(folder), "--no-cache", "--json"] + flags)
            #expect(run.status == 0, "\(run.stderr)")
            let output = try #require(run.jsonLines.first?["output"] as? String)
            let written = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(MetadataFixtures.contains(written, MetadataFixtures.copyright) == !flags.isEmpty)
            #expect(!MetadataFixtures.contains(written, MetadataFixtures.gpsMarker))
        }
    }

    @Test("A PNG whose eXIf says orientation 6 comes out upright")
    func pngOrientation() async throws {
        let input = try await taggedSource("png")
        let output = temp.path("upright.png")
        #expect(try await cli.run(["convert", input, output]).status == 0)
        let source = try PNGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: input)), options: ImageDecodeOptions())
        let upright = try PNGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: output)), options: ImageDecodeOptions())
        #expect(upright.pixelSize == ImageSize(width: 4, height: 8) && upright.orientation == .up)
        #expect(upright.firstFrame == source.firstFrame.applying(.right))
    }

    @Test("info says whether a file has EXIF and XMP, in JSON and in text")
    func infoFields() async throws {
        let input = try await taggedSource("jpg")
        let described = try await info(input)
        #expect(described["hasExif"] as? Bool == true && described["hasXmp"] as? Bool == true)
        #expect(described["orientation"] as? Int == 6)
        let text = try await cli.run(["info", input])
        #expect(text.stdout.contains("EXIF and XMP"), "\(text.stdout)")
    }

    @Test("convert and fetch of a JPEG with IPTC (APP13) and nothing else write no APP13 by default")
    func iptcIsNotCopied() async throws {
        let pixels = try PixelBuffer(width: 8, height: 4, format: .rgb8, bytes: (0..<8 * 4 * 3).map { UInt8($0 * 2) })
        let plain = try JPEGCoder().encode(Image(pixels), as: .jpeg, options: ImageEncodeOptions())
        let input = temp.path("iptc.jpg")
        try MetadataFixtures.jpeg(plain, segments: [(0xED, MetadataFixtures.iptcPayload())]).write(to: URL(fileURLWithPath: input))
        let converted = temp.path("converted.jpg")
        let run = try await cli.run(["convert", input, converted])
        #expect(run.status == 0, "\(run.stderr)")
        let fetched = try await cli.run(["fetch", input, "-o", temp.path("fetched"), "--no-cache", "--json"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let fetchedPath = try #require(fetched.jsonLines.first?["output"] as? String)
        for path in [converted, fetchedPath] {
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(!MetadataFixtures.contains(written, MetadataFixtures.unreadMarker), "\(path)")
            #expect(!MetadataFixtures.contains(written, "Photoshop 3.0"), "\(path)")
            #expect(JPEGCoder().canDecode(written))
        }
    }
}
