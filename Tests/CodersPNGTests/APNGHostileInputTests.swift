import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Broken and hostile APNGs: what Chromium refuses is a typed error, what it shows as a still stays
/// a still with a warning, a cut file keeps its whole frames, and limits refuse before decoding.
@Suite("APNG hostile input", .dedicatedThreads)
struct APNGHostileInputTests {
    typealias Frame = APNGWriter.Frame
    static let red: [UInt8] = [255, 0, 0, 255], blue: [UInt8] = [0, 0, 255, 255]

    static func chunks(frames: Int = 3, width: Int = 2, height: Int = 2) -> [APNGWriter.Chunk] {
        APNGWriter.chunks(width: width, height: height, frames: (0..<frames).map { Frame.filled($0 % 2 == 0 ? red : blue, width: width, height: height) })
    }

    static func badImageData(_ data: Data, options: ImageDecodeOptions = ImageDecodeOptions()) -> String? {
        let error = #expect(throws: ImagePipeError.self) { try PNGCoder().decode(data, options: options) }
        guard case .badImageData(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return nil
        }
        return reason
    }

    static func setBE32(_ value: Int, in payload: inout [UInt8], at offset: Int) {
        payload.replaceSubrange(offset..<offset + 4, with: APNGWriter.be32(value))
    }

    @Test("fcTL sequence numbers out of order after the image data are badImageData")
    func sequenceOutOfOrder() throws {
        var chunks = Self.chunks()
        let last = try #require(chunks.lastIndex { $0.type == "fcTL" })
        Self.setBE32(7, in: &chunks[last].payload, at: 0)
        #expect(Self.badImageData(APNGWriter.file(chunks))?.contains("sequence number 7, expected 3") == true)
    }

    @Test("A frame rectangle outside the canvas is badImageData")
    func frameOutsideCanvas() throws {
        var chunks = Self.chunks()
        let second = try #require(chunks.lastIndex { $0.type == "fcTL" })
        Self.setBE32(1, in: &chunks[second].payload, at: 12)  // x = 1 with width 2 on a 2-wide canvas
        #expect(Self.badImageData(APNGWriter.file(chunks))?.contains("not inside the 2x2 canvas") == true)
    }

    @Test("An fcTL without fdAT is badImageData")
    func missingFrameData() throws {
        var chunks = Self.chunks()
        chunks.remove(at: try #require(chunks.firstIndex { $0.type == "fdAT" }))
        // The next fcTL's sequence number follows on, so only the missing data is wrong.
        var sequence = 0
        for index in chunks.indices where chunks[index].type == "fcTL" || chunks[index].type == "fdAT" {
            Self.setBE32(sequence, in: &chunks[index].payload, at: 0)
            sequence += 1
        }
        #expect(Self.badImageData(APNGWriter.file(chunks))?.contains("has an fcTL but no image data") == true)
    }

    @Test("A damaged fdAT (bad CRC) is badImageData; bad compressed data fails that frame alone")
    func damagedFrameData() throws {
        var file = [UInt8](APNGWriter.file(Self.chunks()))
        file[file.count - 13] ^= 0xFF  // the last fdAT's CRC
        #expect(Self.badImageData(Data(file))?.contains("fdAT is cut short or damaged") == true)

        var chunks = Self.chunks()
        let fdat = try #require(chunks.firstIndex { $0.type == "fdAT" })
        chunks[fdat].payload.replaceSubrange(6..., with: [UInt8](repeating: 0xAB, count: chunks[fdat].payload.count - 6))
        let image = try PNGCoder().decode(APNGWriter.file(chunks), options: ImageDecodeOptions())
        #expect(throws: ImagePipeError.self) { try image.animation?.provider.frame(at: 1) }
        #expect(try image.animation?.provider.frame(at: 2).size == ImageSize(width: 2, height: 2))
    }

    @Test("acTL announcing another frame count plays the frames the file has, with a warning")
    func frameCountMismatch() throws {
        var chunks = Self.chunks()
        Self.setBE32(5, in: &chunks[1].payload, at: 0)
        let image = try PNGCoder().decode(APNGWriter.file(chunks), options: ImageDecodeOptions())
        #expect(image.frameCount == 3)
        #expect(image.metadata.warnings.contains { $0.kind == .corruptData && $0.message.contains("announces 5 frames, the file has 3") })
    }

    @Test("Damage before the image data (bad first fcTL, second acTL, fdAT before IDAT) shows the still image with a warning")
    func brokenBeforeImageData() throws {
        var smallFirst = Self.chunks()
        Self.setBE32(1, in: &smallFirst[2].payload, at: 4)  // the first frame 1 wide on a 2-wide canvas
        var twoACTL = Self.chunks()
        twoACTL.insert(twoACTL[1], at: 1)
        var noFrames = Self.chunks()
        Self.setBE32(0, in: &noFrames[1].payload, at: 0)
        var fdatFirst = Self.chunks()
        fdatFirst.insert(fdatFirst[5], at: 3)
        for (chunks, reason) in [
            (smallFirst, "the first frame does not cover the canvas"), (twoACTL, "a second acTL"),
            (noFrames, "acTL announces no frames"), (fdatFirst, "fdAT before the image data"),
        ] {
            let image = try PNGCoder().decode(APNGWriter.file(chunks), options: ImageDecodeOptions())
            #expect(!image.isAnimated && image.pixelSize == ImageSize(width: 2, height: 2))
            #expect(image.metadata.warnings.contains { $0.message.contains("animation ignored (\(reason))") }, "\(image.metadata.warnings)")
        }
    }

    @Test("A file cut inside a frame keeps the whole frames before it, with a truncated warning")
    func truncated() throws {
        let file = APNGWriter.file(Self.chunks(frames: 4))
        let image = try PNGCoder().decode(file.prefix(file.count - 12 - 10), options: ImageDecodeOptions())
        #expect(image.frameCount == 3)
        #expect(image.metadata.warnings.contains { $0.kind == .truncated })
        // Cut inside frame 0's IDAT: the still decoder's rule (no row arrived) applies.
        let cut = APNGWriter.file(Array(Self.chunks().prefix(4)))
        #expect(Self.badImageData(cut.prefix(cut.count - 8)) != nil)
    }

    @Test("Frames beyond maxFrames are refused as the fcTLs are read")
    func tooManyFrames() throws {
        var options = ImageDecodeOptions()
        options.maxFrames = 5
        let error = #expect(throws: ImagePipeError.self) { try PNGCoder().decode(APNGWriter.file(Self.chunks(frames: 6, width: 1, height: 1)), options: options) }
        guard case .limitExceeded(let limit, let value, let maximum) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(limit == .frames && value == 6 && maximum == 5)
    }

    @Test("A bomb (4000×4000 canvas × 10 frames of junk data) is refused by the animation pixel limit before any frame is decoded")
    func animationBomb() throws {
        var chunks = APNGWriter.chunks(width: 1, height: 1, frames: (0..<10).map { _ in Frame.filled(Self.red, width: 1, height: 1) })
        chunks[0].payload.replaceSubrange(0..<8, with: APNGWriter.be32(4000) + APNGWriter.be32(4000))
        for index in chunks.indices where chunks[index].type == "fcTL" {
            chunks[index].payload.replaceSubrange(4..<12, with: APNGWriter.be32(4000) + APNGWriter.be32(4000))
        }
        let file = APNGWriter.file(chunks)
        #expect(file.count < 2000)
        // Junk data would fail as badImageData if anything were decoded: the limit comes first.
        let error = #expect(throws: ImagePipeError.self) { try PNGCoder().decode(file, options: ImageDecodeOptions()) }
        guard case .limitExceeded(let limit, let value, _) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(limit == .animationPixels && value == 160_000_000)
        #expect(PNGCoder().decodeEstimate(for: file, options: ImageDecodeOptions()) == nil)
    }
}
