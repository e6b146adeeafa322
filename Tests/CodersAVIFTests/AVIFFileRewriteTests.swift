import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import CodersAVIF

/// Files libavif 0.11 misreads and libavif 1.x decodes, edited for 0.11 before it
/// parses them: a `meta` of size 0, an audio track beside an image sequence, a depth map where 0.11
/// looked for alpha, and transformative properties not marked essential. Pixels are compared with
/// the lossless files' source pattern, which libavif 1.4.2's avifdec also gives back.
struct AVIFFileRewriteTests {
    /// Lossless files: libavif's conversion gives the source back to the bit; one level covers a
    /// library path that rounds differently.
    static let tolerance = 1

    @Test("a meta box of size 0, the last box of the file, decodes")
    func metaOfSizeZero() throws {
        let data = try AVIFCorpusFile.data("meta-size-zero.avif")
        let rewrite = try AVIFFileRewrite(data)
        #expect(rewrite.patches.map(\.offset) == [AVIFFileRewrite.topLevelBoxes(data).boxes[1].start])
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.pixelSize == ImageSize(width: 33, height: 11) && image.hasAlpha)
        let expected = TestPNGWriter.pattern(width: 33, height: 11, alpha: true)
        #expect(maxChannelDifference(image.firstFrame.converted(to: .rgba8).bytes, expected) <= Self.tolerance)
    }

    @Test("an image sequence with an audio track decodes its frames; the audio track is ignored")
    func audioTrackIgnored() throws {
        let image = try AVIFCorpusFile.decode("sequence-audio-track.avif")
        #expect(image.frameCount == 3 && image.pixelSize == ImageSize(width: 24, height: 16))
        for index in 0..<3 {
            #expect(image.duration(at: index) == 0.1)
            let expected = TestPNGWriter.pattern(width: 24, height: 16, alpha: false, seed: index + 1)
            #expect(maxChannelDifference(try image.frame(at: index).converted(to: .rgba8).bytes, expected) <= Self.tolerance, "frame \(index)")
        }
    }

    @Test("only the audio track is hidden from libavif; the colour and alpha tracks stay")
    func audioTrackRenamed() throws {
        let data = try AVIFCorpusFile.data("sequence-audio-track.avif")
        let rewrite = try AVIFFileRewrite(data)
        #expect(rewrite.appended.isEmpty && rewrite.patches.count == 1)
        let patch = try #require(rewrite.patches.first)
        #expect(patch.bytes == Array("free".utf8))
        #expect(String(decoding: data[patch.offset..<patch.offset + 4], as: UTF8.self) == "trak")
        // The third track, the one appended after the picture tracks.
        #expect(data[(patch.offset + 4)...].range(of: Data("soun".utf8)) != nil)
        #expect(data[(patch.offset + 4)...].range(of: Data("av01".utf8)) == nil)
    }

    @Test("a depth auxiliary track is not alpha: the sequence is opaque")
    func depthTrackIsNotAlpha() throws {
        let image = try AVIFCorpusFile.decode("sequence-depth-track.avif")
        #expect(!image.hasAlpha && image.frameCount == 3)
        for index in 0..<3 {
            let expected = AVIFCorpusFile.opaque(TestPNGWriter.pattern(width: 24, height: 16, alpha: true, seed: index + 1))
            #expect(maxChannelDifference(try image.frame(at: index).converted(to: .rgba8).bytes, expected) <= Self.tolerance, "frame \(index)")
        }
    }

    @Test("a depth auxiliary item is not alpha: the still is opaque")
    func depthItemIsNotAlpha() throws {
        let data = try AVIFCorpusFile.data("still-depth-item.avif")
        #expect(try AVIFFileRewrite(data).patches.isEmpty)
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(!image.hasAlpha)
        let expected = AVIFCorpusFile.opaque(TestPNGWriter.pattern(width: 31, height: 17, alpha: true))
        #expect(maxChannelDifference(image.firstFrame.converted(to: .rgba8).bytes, expected) <= Self.tolerance)
    }

    @Test("both alpha URNs name alpha; depth and other auxiliary types do not", arguments: AVIFAuxiliaryType.alpha.sorted())
    func alphaURNs(_ urn: String) {
        #expect(AVIFAuxiliaryType.isAlpha(urn))
        #expect(!AVIFAuxiliaryType.isAlpha("urn:mpeg:mpegB:cicp:systems:auxiliary:depth"))
        #expect(!AVIFAuxiliaryType.isAlpha("urn:mpeg:hevc:2015:auxid:2"))
    }

    @Test("clap, irot and imir not marked essential refuse the file, naming the property")
    func nonEssentialTransformsRefused() throws {
        let data = try AVIFCorpusFile.data("clap-irot-imir-non-essential.avif")
        #expect(
            throws: ImagePipeError.badImageData(
                reason: "AVIF item 1 has a 'clap' property not marked essential, which the AVIF and MIAF specifications forbid (libavif 1.x refuses the file)")
        ) {
            try AVIFCoder().decode(data, options: ImageDecodeOptions())
        }
        #expect(AVIFCoder().decodeEstimate(for: data, options: ImageDecodeOptions()) == nil)
    }

    @Test("each of clap, irot and imir alone not marked essential refuses the file", arguments: ["clap", "irot", "imir"])
    func oneNonEssentialTransform(_ property: String) throws {
        let data = try Self.clearingEssential(property, in: try AVIFCorpusFile.data("clap-irot-imir.avif"))
        do {
            _ = try AVIFCoder().decode(data, options: ImageDecodeOptions())
            Issue.record("decoded with a non-essential \(property)")
        } catch ImagePipeError.badImageData(let reason) {
            #expect(reason.contains("'\(property)' property not marked essential"))
        }
    }

    @Test("an a1lx property marked essential refuses the file")
    func essentialLayerIndexRefused() throws {
        // The essential irot property renamed a1lx, in place.
        var bytes = [UInt8](try AVIFCorpusFile.data("clap-irot-imir.avif"))
        let at = try #require(Data(bytes).range(of: Data("irot".utf8))).lowerBound
        bytes.replaceSubrange(at..<at + 4, with: Array("a1lx".utf8))
        do {
            _ = try AVIFCoder().decode(Data(bytes), options: ImageDecodeOptions())
            Issue.record("decoded with an essential a1lx")
        } catch ImagePipeError.badImageData(let reason) {
            #expect(reason.contains("'a1lx' property marked essential"))
        }
    }

    @Test("random edits of a file's boxes never trap the parser; every patch lies inside the file", arguments: Corpus.rows("avif"))
    func editedBoxes(_ row: Corpus.Row) throws {
        let data = try Data(contentsOf: row.url)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var bytes = [UInt8](data)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                // The boxes are in the first kilobyte or so; the AV1 data after them is not read here.
                let at = Int.random(in: 0..<min(bytes.count, 1200), using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] ^= UInt8.random(in: 1...255, using: &random)
                case 1: bytes[at] = [0, 1, 0x7F, 0x80, 0xFF].randomElement(using: &random)!
                case 2: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
                default: bytes.insert(contentsOf: [UInt8](repeating: .random(in: 0...255, using: &random), count: Int.random(in: 1...8, using: &random)), at: at)
                }
            }
            let copy = Data(bytes.prefix(Bool.random(using: &random) ? bytes.count : Int.random(in: 0...bytes.count, using: &random)))
            guard let rewrite = try? AVIFFileRewrite(copy) else { continue }
            #expect(rewrite.patches.allSatisfy { $0.offset >= 0 && $0.offset + $0.bytes.count <= copy.count })
        }
    }

    /// `avif` with the essential bit of its `ipma` association with `property` cleared.
    static func clearingEssential(_ property: String, in data: Data) throws -> Data {
        var bytes = [UInt8](data)
        let meta = try #require(AVIFBox.children(of: bytes, in: 0..<bytes.count).first { $0.type == "meta" })
        let table = AVIFMetaBox(bytes, meta)
        let index = try #require(table.properties.firstIndex { $0.type == property }) + 1
        let ipma = try #require(table.associationBoxes.first?.box)
        // 7-bit indices: the association is one byte, the essential bit its top bit.
        let at = try #require(bytes[ipma.payload].firstIndex(of: UInt8(0x80 | index)))
        bytes[at] &= 0x7F
        return Data(bytes)
    }
}
