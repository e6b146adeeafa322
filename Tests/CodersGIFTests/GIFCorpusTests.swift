import CodersGIF
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("GIF corpus", .dedicatedThreads)
struct GIFCorpusTests {
    let coder = GIFCoder()

    /// Decodes every frame; the frames, or the typed error.
    func decodeAll(_ data: Data) throws -> (Image, [PixelBuffer]) {
        let image = try coder.decode(data, options: ImageDecodeOptions())
        return (image, try (0..<image.frameCount).map { try image.frame(at: $0) })
    }

    @Test(
        "Every manifest row decodes to its listed size and frame count, or is rejected with a typed error",
        arguments: Corpus.rows("gif"))
    func manifestRow(_ row: Corpus.Row) throws {
        let data = try Data(contentsOf: row.url)
        #expect(coder.canDecode(data) || !row.expectDecode)
        let result: (Image, [PixelBuffer])
        do {
            result = try decodeAll(data)
        } catch let error as ImagePipeError {
            // Disputed rows may fail cleanly (corpus policy); rejected rows must.
            #expect(!row.expectDecode || row.isDisputed, "\(row.file) failed: \(error)")
            return
        }
        if !row.expectDecode {
            #expect(row.isDisputed, "\(row.file) should have been rejected")
            return
        }
        let (image, frames) = result
        let giflib = Self.followsGiflib[row.file] != nil ? GiflibNotes(row.notes) : nil
        #expect(image.pixelSize == ImageSize(width: row.width, height: row.height))
        #expect(image.frameCount == (giflib?.frames ?? row.frames))
        #expect(image.format == .gif)

        if let reference = PygifReference(row) {
            if image.isAnimated, let loop = reference.loopCount {
                // Without a NETSCAPE2.0 extension (giflib reports loop=-1) SDWebImage's GIF default of
                // 1 applies, where pygif's reader assumes forever.
                #expect(image.loopCount == (row.notes.contains("loop=-1") ? 1 : loop))
            }
            // Each of the suite's frames is, for a disputed row, the frame of the block ending it.
            let shown = giflib?.pygifFrameEnds ?? Array(frames.indices)
            #expect(reference.frames.count == shown.count)
            for (index, expected) in zip(shown, reference.frames) where index < frames.count {
                if let pixels = expected.pixels {
                    let rgba = frames[index].converted(to: .rgba8).bytes
                    #expect(sameVisiblePixels(rgba, pixels), "\(row.file) frame \(index) differs from its .rgba reference")
                }
                if image.isAnimated, let delay = expected.delay, delay * 10 >= 11 {
                    #expect(abs(image.duration(at: index) - Double(delay) / 100) < 1e-9)
                }
            }
        }
        for (index, url) in Self.pngReferences(row) {
            guard index < frames.count else {
                Issue.record("\(row.file): no frame \(index)")
                continue
            }
            let reference = try #require(ReferencePNG.read(url), "cannot read \(url.lastPathComponent)")
            #expect(
                sameVisiblePixels(frames[index].converted(to: .rgba8).bytes, reference.rgba),
                "\(row.file) frame \(index) differs from \(url.lastPathComponent)")
        }
    }

    /// Rows where the pygif suite disagrees with giflib, followed here as browsers, ImageIO and
    /// Pillow do: the suite draws image blocks without a positive delay together with the next
    /// block as one frame; giflib counts every block as a frame (the manifest's frames column
    /// holds the suite's count, its notes giflib's).
    static let followsGiflib: [String: String] = [
        "pygif-test-suite/animation-multi-image.gif": "blocks without a delay are frames of their own: 7, not the suite's 4",
        "pygif-test-suite/animation-multi-image-explicit-zero-delay.gif": "zero-delay blocks are frames of their own: 7, not the suite's 4",
        "pygif-test-suite/dispose-restore-previous.gif": "the first block, without a delay, is a frame of its own: 5, not 4",
        "pygif-test-suite/high-color.gif": "four blocks without delays are four frames, not one picture",
        "pygif-test-suite/images-combine.gif": "four blocks without delays are four frames, not one picture",
        "pygif-test-suite/images-overlap.gif": "two blocks without delays are two frames, not one picture",
    ]

    /// What the manifest's notes say giflib read: its frame count, and which of its frames end the
    /// suite's frames (a block with a positive delay, or the last block).
    struct GiflibNotes {
        var frames = 0
        var pygifFrameEnds: [Int] = []

        init(_ notes: String) {
            func field(_ name: String) -> Substring? {
                guard let range = notes.range(of: "giflib-5.2.1: ok ")?.upperBound,
                    let start = notes[range...].range(of: name + "=")?.upperBound
                else { return nil }
                return notes[start...].prefix { $0 != " " && $0 != ";" }
            }
            frames = field("frames").flatMap { Int($0) } ?? 0
            let delays = (field("delays_ms") ?? "").split(separator: ",").map { Int($0) ?? -1 }
            pygifFrameEnds = delays.indices.filter { delays[$0] > 0 || $0 == delays.count - 1 }
        }
    }

    @Test("Disputed rows: giflib's frame counts, every block a frame", arguments: followsGiflib.keys.sorted())
    func followsGiflibRow(_ file: String) throws {
        let row = try #require(Corpus.rows("gif").first { $0.file == file })
        let notes = GiflibNotes(row.notes)
        #expect(notes.frames > row.frames, "\(file): \(Self.followsGiflib[file] ?? "")")
        let image = try coder.decode(Data(contentsOf: row.url), options: ImageDecodeOptions())
        #expect(image.frameCount == notes.frames)
    }

    /// peterdn ships every frame (`frames/<name>-N.png`); image-rs the first frame, named in the
    /// notes (`reference/gif/....png`).
    static func pngReferences(_ row: Corpus.Row) -> [(Int, URL)] {
        let suite = Corpus.root.appendingPathComponent(row.suite)
        if row.file.hasPrefix("peterdn-gif-test-suite/") {
            let name = row.url.deletingPathExtension().lastPathComponent
            return (0..<row.frames).map { n in
                (n, suite.appendingPathComponent("peterdn-gif-test-suite/frames/\(name)-\(n).png"))
            }.filter { FileManager.default.fileExists(atPath: $0.1.path) }
        }
        if row.file.hasPrefix("image-rs/"), let range = row.notes.range(of: "first-frame reference ") {
            let path = row.notes[range.upperBound...].prefix { $0 != ";" && $0 != " " }
            return [(0, suite.appendingPathComponent("image-rs/\(path)"))]
        }
        return []
    }

    @Test("Rows the suite expects to fail throw ImagePipeError, never crash")
    func rejectedRowsThrowTypedErrors() throws {
        for row in Corpus.rows("gif") where !row.expectDecode && !row.isDisputed {
            let data = try Data(contentsOf: row.url)
            #expect(throws: ImagePipeError.self, "\(row.file)") { _ = try decodeAll(data) }
        }
    }

    @Test("A GIF without a NETSCAPE2.0 extension plays once; with one it loops as stored")
    func loopCounts() throws {
        let noLoop = try coder.decode(Corpus.data("gif", "peterdn-gif-test-suite/animated_noloop.gif"), options: ImageDecodeOptions())
        #expect(noLoop.loopCount == 1)
        let loop = try coder.decode(Corpus.data("gif", "peterdn-gif-test-suite/animated_loop.gif"), options: ImageDecodeOptions())
        #expect(loop.loopCount == 0)
    }

    @Test("Delays under 11 ms and missing delays play as 100 ms (SDWebImage's ImageIO rule)")
    func shortDelays() throws {
        for file in ["pygif-test-suite/animation-zero-delays.gif", "pygif-test-suite/animation-no-delays.gif"] {
            let image = try coder.decode(Corpus.data("gif", file), options: ImageDecodeOptions())
            #expect(image.frameCount == 4)
            for index in 0..<image.frameCount { #expect(image.duration(at: index) == 0.1, "\(file) frame \(index)") }
        }
        let speeds = try coder.decode(Corpus.data("gif", "pygif-test-suite/animation-speed.gif"), options: ImageDecodeOptions())
        #expect((0..<4).map { speeds.duration(at: $0) } == [0.25, 0.5, 1, 2])
    }

    @Test("Truncated and byte-flipped GIFs decode or fail with ImagePipeError")
    func damagedFiles() throws {
        let files = [
            "peterdn-gif-test-suite/animated_transparent_restoreprev_loop.gif",
            "pygif-test-suite/interlace.gif", "image-rs/images/gif/anim/mixed-disposal.gif",
            "pygif-test-suite/large-codes.gif",
        ]
        for file in files {
            let original = try Corpus.data("gif", file)
            var variants: [Data] = []
            for cut in stride(from: 0, to: original.count, by: max(1, original.count / 23)) { variants.append(original.prefix(cut)) }
            for position in stride(from: 6, to: original.count, by: max(1, original.count / 31)) {
                var flipped = original
                flipped[position] ^= 0xA5
                variants.append(flipped)
            }
            for variant in variants {
                do { _ = try decodeAll(variant) } catch is ImagePipeError {} catch { Issue.record("\(file): untyped error \(error)") }
            }
        }
    }

    @Test("A GIF cut inside a frame keeps the frames before it and the cut one's rows, with a truncation warning")
    func truncatedFileWarns() throws {
        let whole = try Corpus.data("gif", "peterdn-gif-test-suite/animated_loop.gif")
        let complete = try coder.decode(whole, options: ImageDecodeOptions())
        #expect(complete.frameCount == 4 && complete.metadata.warnings.isEmpty)
        for cut in [whole.count / 3, whole.count * 2 / 3] {
            let (image, frames) = try decodeAll(whole.prefix(cut))
            #expect(image.pixelSize == ImageSize(width: 100, height: 100))
            #expect((1...4).contains(image.frameCount), "cut at \(cut)")
            let warning = try #require(image.metadata.warnings.first, "cut at \(cut)")
            #expect(warning.kind == .truncated)
            #expect(warning.message.hasPrefix("GIF: file is truncated inside image "), "\(warning.message)")
            // Frames before the cut are exactly the complete file's.
            for index in 0..<(frames.count - 1) { #expect(frames[index] == (try complete.frame(at: index)), "frame \(index)") }
        }
        // Only the trailer byte missing: common in the wild, every frame whole, nothing to say.
        let untrailed = try coder.decode(whole.dropLast(), options: ImageDecodeOptions())
        #expect(untrailed.frameCount == 4 && untrailed.metadata.warnings.isEmpty)
    }
}
