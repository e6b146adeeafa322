import Foundation
import ImagePipe
import TestSupport
import Testing

@testable import PipelineCore

@Suite("Format sniffing")
struct ImageFormatDetectionTests {
    /// Every corpus file that must decode is sniffed as its suite's format from its bytes, whatever
    /// its name says, except the one public file that is really a PNG named `.jpg`.
    @Test(
        "Real files of each format are recognised by their magic bytes",
        arguments: ["pngsuite": ImageFormat.png, "jpeg": .jpeg, "webp": .webp, "gif": .gif])
    func realFiles(suite: String, format: ImageFormat) throws {
        let rows = Corpus.rows(suite).filter(\.expectDecode)
        #expect(rows.count > 40, "the \(suite) manifest should list its files")
        for row in rows {
            let data = try Data(contentsOf: row.url)
            let expected: ImageFormat = row.file.hasSuffix("jpg-size-6x6.jpg") ? .png : format
            #expect(ImageFormat.detect(in: data) == expected, "\(row.file)")
        }
    }

    @Test("Headers of the other formats follow SDWebImage's table")
    func headerTable() {
        func sniff(_ bytes: [UInt8]) -> ImageFormat { ImageFormat.detect(in: bytes) }
        let ftyp = { (brand: String) in [0, 0, 0, 0x18] + Array(brand.utf8) + [0, 0, 0, 0] }
        #expect(sniff([]) == .undefined)
        #expect(sniff([0x49, 0x49, 0x2A, 0x00]) == .tiff)
        #expect(sniff([0x4D, 0x4D, 0x00, 0x2A]) == .tiff)
        #expect(sniff(ftyp("ftypheic")) == .heic)
        #expect(sniff(ftyp("ftyphevx")) == .heic)
        #expect(sniff(ftyp("ftypmif1")) == .heif)
        #expect(sniff(ftyp("ftypavif")) == .avif)
        #expect(sniff(Array("%PDF-1.7".utf8)) == .pdf)
        #expect(sniff(Array("<svg xmlns='http://www.w3.org/2000/svg'></svg>".utf8)) == .svg)
        #expect(sniff(Array("<html></html>".utf8)) == .undefined)
        #expect(sniff(Array("BM".utf8) + [0, 0]) == .bmp)
        #expect(sniff([0, 0, 1, 0, 1, 0]) == .ico)
        #expect(sniff([0, 0, 2, 0, 3, 0]) == .ico)
        #expect(sniff([0, 0, 1, 0, 0, 0]) == .undefined)
        #expect(sniff([0xFF, 0x0A, 0x00]) == .jxl)
        #expect(sniff([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == .jxl)
        // RIFF that is not WebP (a WAV file), and WebP cut before its fourcc.
        #expect(sniff(Array("RIFF\0\0\0\0WAVE".utf8)) == .undefined)
        #expect(sniff(Array("RIFF\0\0\0\0WE".utf8)) == .undefined)
        #expect(sniff(Array("hello".utf8)) == .undefined)
    }

    @Test("Formats are found by identifier, extension and MIME type")
    func lookups() {
        #expect(ImageFormat.named("JPG") == .jpeg)
        #expect(ImageFormat.named(".webp") == .webp)
        #expect(ImageFormat.named("image/gif") == .gif)
        #expect(ImageFormat.named("png")?.mimeType == "image/png")
        #expect(ImageFormat.named("nope") == nil)
        #expect(ImageFormat.jpeg.preferredFileExtension == "jpg")
        let pam = ImageFormat(identifier: "pam", mimeType: "image/x-portable-arbitrarymap", fileExtensions: ["pam"])
        #expect(pam != .png)
        #expect(pam == ImageFormat(identifier: "pam", mimeType: "other", fileExtensions: []))
    }
}
