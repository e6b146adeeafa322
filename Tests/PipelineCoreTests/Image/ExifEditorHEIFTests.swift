import Foundation
import Testing

@testable import PipelineCore

/// EXIF items of HEIF and AVIF files: a 4-byte offset to the TIFF header, then the header.
struct ExifEditorHEIFTests {
    static let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0]

    @Test("the TIFF structure after the item's offset, skipping what the offset skips")
    func offsetSkipped() {
        #expect(ExifEditor.tiffData(fromHEIFItem: Data([0, 0, 0, 0] + Self.tiff)) == Data(Self.tiff))
        #expect(ExifEditor.tiffData(fromHEIFItem: Data([0, 0, 0, 6] + Array("Exif\0\0".utf8) + Self.tiff)) == Data(Self.tiff))
    }

    @Test("a payload that starts like TIFF is taken as it is")
    func bareTIFF() {
        #expect(ExifEditor.tiffData(fromHEIFItem: Data(Self.tiff)) == Data(Self.tiff))
    }

    @Test("an offset past the end, or no TIFF header, gives nil")
    func refused() {
        #expect(ExifEditor.tiffData(fromHEIFItem: Data([0, 0, 0, 200] + Self.tiff)) == nil)
        #expect(ExifEditor.tiffData(fromHEIFItem: Data([0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8])) == nil)
        #expect(ExifEditor.tiffData(fromHEIFItem: Data([0, 0])) == nil)
    }
}
