import CodersTIFF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Thumbnails are shrunk while strips and tiles are read: the same pixels as shrinking the full
/// decode, without holding it.
@Suite("TIFF thumbnails", .dedicatedThreads)
struct TIFFThumbnailTests {
    @Test(
        "a thumbnail equals the full decode resampled",
        arguments: ["rgb8-lzw.tif", "rgb8-tiled-lzw.tif", "rgb8-separate-zip.tif", "rgba8-tiled-separate.tif", "gray16-none.tif", "ycbcr-420-none.tif"])
    func matchesFullDecode(_ file: String) throws {
        let data = try Corpus.data("tiff", file)
        let full = try TIFFCoder().decode(data, options: ImageDecodeOptions())
        for box in [ImageSize(width: 8, height: 8), ImageSize(width: 15, height: 15), ImageSize(width: 30, height: 30)] {
            let thumbnail = try TIFFCoder().decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
            let expected = full.firstFrame.resampled(to: thumbnail.pixelSize)
            #expect(thumbnail.pixelSize == ImageSizeMath.scaledSize(full.pixelSize, toFit: box, preserveAspectRatio: true, allowUpscaling: false))
            // Compared premultiplied: under low alpha, colour is rounded differently on either path.
            let difference = try #require(ReferencePAM.maxDifference(ReferencePAM.premultiplied(thumbnail.firstFrame), ReferencePAM.premultiplied(expected)))
            #expect(difference <= 2, "\(file) at \(box): \(difference) levels")
        }
    }

    /// 9,000 x 6,000 gray pixels of horizontal bands, PackBits in strips of 16 rows: 54 MP, whose
    /// full decode alone would hold 54 MB.
    static func largeScan() -> Data {
        let width = 9_000, height = 6_000, rowsPerStrip = 16
        var row: [UInt8] = []
        var strips: [[UInt8]] = []
        var strip: [UInt8] = []
        for y in 0..<height {
            let value = UInt8((y / 100) % 2 == 0 ? 40 : 220)
            row.removeAll(keepingCapacity: true)
            var left = width
            while left > 0 {
                let run = min(left, 128)
                row += [UInt8(bitPattern: Int8(1 - run)), value]
                left -= run
            }
            strip += row
            if (y + 1) % rowsPerStrip == 0 || y == height - 1 {
                strips.append(strip)
                strip = []
            }
        }
        return MinimalTIFF.gray8(width: width, height: height, rowsPerStrip: rowsPerStrip, compression: 32773, strips: strips)
    }

    /// Unoptimised test builds take seconds over it; the time limit is the release build's.
    @Test("a 54-megapixel scan makes a 256-pixel thumbnail strip by strip")
    func largeScanThumbnail() throws {
        let data = Self.largeScan()
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 256, height: 256), maxDecodeTime: nil)
        let thumbnail = try TIFFCoder().decode(data, options: options)
        #expect(thumbnail.pixelSize == ImageSize(width: 256, height: 171))
        #expect(thumbnail.pixelFormat == .gray8)
        // Band 0 (rows 0-99) is dark, band 1 light: at 171/6000 a band is about 3 thumbnail rows.
        #expect(thumbnail.firstFrame.color(x: 128, y: 0).red < 60)
        #expect(thumbnail.firstFrame.color(x: 128, y: 4).red > 200)
    }
}

/// Uncompressed-header TIFFs with one directory of 8-bit gray strips, for sizes no fixture has.
enum MinimalTIFF {
    static func gray8(width: Int, height: Int, rowsPerStrip: Int, compression: Int, strips: [[UInt8]]) -> Data {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        let entryCount = 9
        let ifdSize = 2 + 12 * entryCount + 4
        let offsetsAt = 8 + ifdSize
        let countsAt = offsetsAt + 4 * strips.count
        var dataAt = countsAt + 4 * strips.count
        var offsets: [UInt8] = [], counts: [UInt8] = []
        for strip in strips {
            offsets += le32(dataAt)
            counts += le32(strip.count)
            dataAt += strip.count
        }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + (type == 3 && count == 1 ? le16(value) + [0, 0] : le32(value))
        }
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0] + le32(8) + le16(entryCount)
        bytes += entry(256, 4, 1, width) + entry(257, 4, 1, height) + entry(258, 3, 1, 8) + entry(259, 3, 1, compression)
        bytes += entry(262, 3, 1, 1) + entry(273, 4, strips.count, offsetsAt) + entry(277, 3, 1, 1)
        bytes += entry(278, 4, 1, rowsPerStrip) + entry(279, 4, strips.count, countsAt) + le32(0)
        bytes += offsets + counts
        for strip in strips { bytes += strip }
        return Data(bytes)
    }
}
