import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersAVIF

/// Grids as libavif 1.x assembles them: tiles in `dimg` order, and alpha on each tile
/// of a colour grid without an alpha grid (libavif's color_grid_alpha_nogrid layout). Pixels are compared with the
/// lossless files' source pattern, which libavif 1.4.2's avifdec also gives back.
struct AVIFGridRewriteTests {
    static let tolerance = 1

    /// The pattern with its 64-pixel-wide columns of tiles drawn in `order` (source tile numbers).
    static func tiles(_ rgba: [UInt8], width: Int, height: Int, order: [Int]) -> [UInt8] {
        var out = rgba
        for y in 0..<height {
            for (place, tile) in order.enumerated() {
                let to = (y * width + place * 64) * 4, from = (y * width + tile * 64) * 4
                out.replaceSubrange(to..<to + 64 * 4, with: rgba[from..<from + 64 * 4])
            }
        }
        return out
    }

    @Test("a grid whose dimg references are reversed draws its tiles in reference order")
    func reversedReferences() throws {
        let image = try AVIFCorpusFile.decode("grid-dimg-reversed.avif")
        #expect(image.pixelSize == ImageSize(width: 192, height: 64))
        let source = AVIFCorpusFile.opaque(TestPNGWriter.pattern(width: 192, height: 64, alpha: false))
        let expected = Self.tiles(source, width: 192, height: 64, order: [2, 1, 0])
        #expect(maxChannelDifference(image.firstFrame.converted(to: .rgba8).bytes, expected) <= Self.tolerance)
    }

    @Test("the reordered meta box has the old one's size and is written in place")
    func reorderedInPlace() throws {
        let data = try AVIFCorpusFile.data("grid-dimg-reversed.avif")
        let rewrite = try AVIFFileRewrite(data)
        let meta = try #require(AVIFFileRewrite.topLevelBoxes(data).boxes.first { $0.type == "meta" })
        #expect(rewrite.appended.isEmpty)
        #expect(rewrite.patches.count == 1 && rewrite.patches[0].offset == meta.start && rewrite.patches[0].bytes.count == meta.size)
    }

    @Test("a grid with its references in order is drawn as stored and left untouched")
    func referencesInOrder() throws {
        let data = try AVIFCorpusFile.data("grid-dimg-in-order.avif")
        #expect(try AVIFFileRewrite(data).patches.isEmpty)
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        let expected = AVIFCorpusFile.opaque(TestPNGWriter.pattern(width: 192, height: 64, alpha: false))
        #expect(maxChannelDifference(image.firstFrame.converted(to: .rgba8).bytes, expected) <= Self.tolerance)
    }

    @Test("alpha items on each tile of a colour grid, without an alpha grid, are the image's alpha")
    func alphaPerTile() throws {
        let image = try AVIFCorpusFile.decode("grid-alpha-per-tile.avif")
        #expect(image.hasAlpha && image.pixelSize == ImageSize(width: 128, height: 64))
        let expected = TestPNGWriter.pattern(width: 128, height: 64, alpha: true)
        #expect(maxChannelDifference(image.firstFrame.converted(to: .rgba8).bytes, expected) <= Self.tolerance)
    }

    @Test("the alpha grid goes into a rebuilt meta box after the last box; the old one becomes free")
    func alphaGridAppended() throws {
        let data = try AVIFCorpusFile.data("grid-alpha-per-tile.avif")
        let rewrite = try AVIFFileRewrite(data)
        let meta = try #require(AVIFFileRewrite.topLevelBoxes(data).boxes.first { $0.type == "meta" })
        #expect(rewrite.patches.map(\.offset) == [meta.start + 4] && rewrite.patches[0].bytes == Array("free".utf8))
        let rebuilt = AVIFMetaBox(rewrite.appended, try #require(AVIFBox.children(of: rewrite.appended, in: 0..<rewrite.appended.count).first))
        let grid = try #require(rebuilt.items.last)
        #expect(grid.type == "grid" && grid.id == 7)
        #expect(AVIFAuxiliaryType.isAlpha(rebuilt.auxiliaryType(of: 7)))
        #expect(rebuilt.references.suffix(2).map(\.type) == ["auxl", "dimg"])
        #expect(rebuilt.references.last?.to == [5, 6])
        #expect(rebuilt.locations?.last?.extents.map(\.offset) == rebuilt.locations?.first { $0.id == 1 }?.extents.map(\.offset))
    }

    @Test("a tile with two alpha items is refused, as libavif 1.x refuses it")
    func twoAlphaItemsForOneTile() throws {
        // `auxl 6 -> 3` becomes `auxl 6 -> 2`: tile 2 has alpha items 5 and 6, tile 3 none.
        var bytes = [UInt8](try AVIFCorpusFile.data("grid-alpha-per-tile.avif"))
        let auxl6 = Array("auxl".utf8) + [0, 6, 0, 1, 0, 3]
        let at = try #require(Data(bytes).range(of: Data(auxl6))).lowerBound
        bytes[at + 9] = 2
        do {
            _ = try AVIFCoder().decode(Data(bytes), options: ImageDecodeOptions())
            Issue.record("decoded")
        } catch ImagePipeError.badImageData(let reason) {
            #expect(reason.contains("alpha images that do not make a grid"))
        }
    }

    @Test("a file with bytes after its last box cannot have its meta box moved: refused")
    func trailingBytes() throws {
        let data = try AVIFCorpusFile.data("grid-alpha-per-tile.avif") + Data([1, 2, 3])
        #expect(throws: ImagePipeError.self) { try AVIFCoder().decode(data, options: ImageDecodeOptions()) }
        // A reordering that fits in place needs no move.
        let reversed = try AVIFCorpusFile.data("grid-dimg-reversed.avif") + Data([1, 2, 3])
        #expect(try AVIFFileRewrite(reversed).patches.count == 1)
    }
}
