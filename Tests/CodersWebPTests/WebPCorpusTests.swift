import CodersWebP
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("WebP corpus", .dedicatedThreads)
struct WebPCorpusTests {
    let coder = WebPCoder()

    @Test(
        "Every manifest row decodes to its listed size and frame count with libwebp's pixels",
        arguments: Corpus.rows("webp"))
    func manifestRow(_ row: Corpus.Row) throws {
        let data = try Data(contentsOf: row.url)
        #expect(coder.canDecode(data))
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.pixelSize == ImageSize(width: row.width, height: row.height))
        #expect(image.frameCount == row.frames)
        #expect(image.format == .webp)
        if image.isAnimated {
            // libwebp's WebPAnimDecoder is the reference compositor: frames must match it exactly
            // (lossy frames too, since both run the same VP8 decoder).
            let reference = try #require(LibWebPReference.animation(data))
            #expect(image.loopCount == reference.loopCount)
            #expect(reference.frames.count == image.frameCount)
            for index in 0..<min(image.frameCount, reference.frames.count) {
                let frame = try image.frame(at: index).converted(to: .rgba8)
                #expect(sameBytes(frame.bytes, reference.frames[index]), "frame \(index) differs from WebPAnimDecoder")
                #expect(image.duration(at: index) > 0.010)
            }
        } else {
            let reference = try #require(LibWebPReference.still(data, format: image.pixelFormat))
            #expect(sameBytes(image.firstFrame.bytes, reference))
        }
        for (index, url, tolerance) in Self.pngReferences(row) {
            let reference = try #require(ReferencePNG.read(url), "cannot read \(url.lastPathComponent)")
            let frame = try image.frame(at: index).converted(to: .rgba8).bytes
            #expect(
                maxDifference(frame, reference.rgba) <= tolerance,
                "\(row.file) frame \(index) differs from \(url.lastPathComponent)")
        }
    }

    /// libwebp's grid.png/peak.png for the lossless vectors (exact) and image-webp's per-frame
    /// renderings of its animations (1-based names). image-webp rounds alpha blending its own way,
    /// so blended lossless frames may differ by 1 (the exact check is against libwebp's compositor
    /// above); lossy references come from another VP8 decoder, hence a wider tolerance.
    static func pngReferences(_ row: Corpus.Row) -> [(Int, URL, Int)] {
        let suite = Corpus.root.appendingPathComponent(row.suite)
        let name = row.url.deletingPathExtension().lastPathComponent
        if name.hasPrefix("lossless_vec_1_") { return [(0, suite.appendingPathComponent("libwebp-test-data/grid.png"), 0)] }
        if name.hasPrefix("lossless_vec_2_") { return [(0, suite.appendingPathComponent("libwebp-test-data/peak.png"), 0)] }
        if row.file.hasPrefix("image-webp/animated/") {
            return (0..<row.frames).map { n in
                (n, suite.appendingPathComponent("image-webp/reference/animated/\(name)-\(n + 1).png"), name.contains("lossy") ? 8 : 1)
            }.filter { FileManager.default.fileExists(atPath: $0.1.path) }
        }
        return []
    }

    @Test("Files without alpha stay RGB; files with alpha are RGBA")
    func pixelFormats() throws {
        #expect(try coder.decode(Corpus.data("webp", "libwebp-test-data/test.webp"), options: ImageDecodeOptions()).pixelFormat == .rgb8)
        #expect(try coder.decode(Corpus.data("webp", "libwebp-test-data/vp80-00-comprehensive-001.webp"), options: ImageDecodeOptions()).pixelFormat == .rgb8)
        #expect(try coder.decode(Corpus.data("webp", "libwebp-test-data/lossy_alpha1.webp"), options: ImageDecodeOptions()).pixelFormat == .rgba8)
    }

    @Test("Truncated and byte-flipped WebP files decode or fail with ImagePipeError, never crash")
    func damagedFiles() throws {
        let files = [
            "libwebp-test-data/test.webp", "libwebp-test-data/lossless_vec_1_5.webp",
            "libwebp-test-data/lossy_alpha2.webp", "image-webp/animated/random_lossy.webp",
            "sdwebimage-webpcoder/TestImageBlendAnimated.webp", "libwebp-test-data/small_13x1.webp",
        ]
        for file in files {
            let original = try Corpus.data("webp", file)
            var variants: [Data] = []
            for cut in stride(from: 0, to: original.count, by: max(1, original.count / 17)) { variants.append(original.prefix(cut)) }
            for position in stride(from: 0, to: original.count, by: max(1, original.count / 29)) {
                var flipped = original
                flipped[position] ^= 0x5A
                variants.append(flipped)
            }
            for variant in variants {
                do {
                    let image = try coder.decode(variant, options: ImageDecodeOptions())
                    for index in 0..<image.frameCount { _ = try image.frame(at: index) }
                } catch is ImagePipeError {
                } catch {
                    Issue.record("\(file): untyped error \(error)")
                }
            }
        }
    }

    @Test("Frames asked for in any order match libwebp's sequential compositing")
    func randomAccess() throws {
        for file in ["sdwebimage-webpcoder/TestImageBlendAnimated.webp", "image-rs/images/webp/extended_images/anim.webp"] {
            let data = try Corpus.data("webp", file)
            let reference = try #require(LibWebPReference.animation(data))
            let provider = try #require(try coder.animatedImageProvider(for: data, options: ImageDecodeOptions()))
            let order = Array((0..<provider.frameCount).reversed()) + [3, 1, 4, 0, 2, 5].filter { $0 < provider.frameCount }
            for index in order {
                #expect(sameBytes(try provider.frame(at: index).converted(to: .rgba8).bytes, reference.frames[index]), "\(file) frame \(index)")
            }
        }
    }

    @Test("Limits are checked before allocating")
    func limits() throws {
        let animated = try Corpus.data("webp", "sdwebimage-webpcoder/TestImageBlendAnimated.webp")
        #expect(throws: ImagePipeError.limitExceeded(.pixels, value: 160_000, maximum: 1000)) {
            try coder.decode(animated, options: ImageDecodeOptions(maxPixels: 1000))
        }
        #expect(throws: ImagePipeError.limitExceeded(.frames, value: 12, maximum: 5)) {
            try coder.decode(animated, options: ImageDecodeOptions(maxFrames: 5))
        }
        #expect(throws: ImagePipeError.self) {
            try coder.decode(Corpus.data("webp", "libwebp-test-data/bryce.webp"), options: ImageDecodeOptions(maxPixels: 1_000_000))
        }
    }

    @Test("Registered with one call, the manager sends WebP bytes to the WebP coder")
    func registration() throws {
        let manager = ImageCodersManager()
        manager.add(WebPCoder())
        let data = try Corpus.data("webp", "libwebp-test-data/test.webp")
        #expect(manager.canDecode(data))
        #expect(!coder.canDecode(Data("GIF89a".utf8)))
        #expect(try manager.decode(data, options: ImageDecodeOptions()).format == .webp)
    }

    @Test("Bytes that are not WebP get the same typed errors as from every other coder")
    func wrongBytes() throws {
        #expect(throws: ImagePipeError.unsupportedFormat(.gif, reason: "WebPCoder decodes WEBP only")) {
            try coder.decode(Corpus.data("gif", "pygif-test-suite/four-colors.gif"), options: ImageDecodeOptions())
        }
        // A RIFF file of another kind (a WAVE sound) is not an image format at all.
        #expect(throws: ImagePipeError.badImageData(reason: "not a WEBP file: no WEBP signature")) {
            try coder.animatedImageProvider(for: Data("RIFF\0\0\0\0WAVEfmt ".utf8), options: ImageDecodeOptions())
        }
        #expect(throws: ImagePipeError.badImageData(reason: "no bytes")) { try coder.decode(Data(), options: ImageDecodeOptions()) }
    }

    @Test(
        "A still WebP cut short shows the rows libwebp decoded, blank below, with a truncation warning",
        arguments: ["image-rs/images/webp/lossy_images/simple-rgb.webp", "image-webp/regression/lossless_indexed_4bit_palette.webp"])
    func truncatedStillWarns(file: String) throws {
        let whole = try Corpus.data("webp", file)
        let complete = try coder.decode(whole, options: ImageDecodeOptions())
        #expect(complete.metadata.warnings.isEmpty)
        let image = try coder.decode(whole.prefix(whole.count * 3 / 4), options: ImageDecodeOptions())
        #expect(image.pixelSize == complete.pixelSize)
        let warning = try #require(image.metadata.warnings.first)
        #expect(warning.kind == .truncated)
        #expect(warning.message.hasPrefix("WebP: file is truncated: "), "\(warning.message)")
        #expect(warning.message.hasSuffix(" of \(complete.pixelSize.height) rows decoded, the rest left blank"), "\(warning.message)")
        let rows = try #require(Int(warning.message.split(separator: " ")[4]))
        let cut = image.firstFrame.bytesPerRow * rows
        #expect(image.firstFrame.bytes.prefix(cut) == complete.firstFrame.bytes.prefix(cut))
        #expect(image.firstFrame.bytes.dropFirst(cut).allSatisfy { $0 == 0 })
    }

    @Test(
        "A thumbnail of a still WebP cut short decodes the rows present straight at the thumbnail size: the thumbnail's own rows, not a resampled full canvas",
        arguments: ["image-rs/images/webp/lossy_images/simple-rgb.webp", "image-webp/regression/lossless_indexed_4bit_palette.webp"])
    func truncatedStillThumbnail(file: String) throws {
        let whole = try Corpus.data("webp", file)
        let full = try coder.decode(whole, options: ImageDecodeOptions()).pixelSize
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: full.width / 2, height: full.height / 2))
        let complete = try coder.decode(whole, options: options)
        let target = complete.pixelSize
        #expect(target.height < full.height)
        let image = try coder.decode(whole.prefix(whole.count * 3 / 4), options: options)
        #expect(image.pixelSize == target)
        let warning = try #require(image.metadata.warnings.first)
        #expect(warning.message.hasSuffix(" of \(target.height) rows decoded, the rest left blank"), "\(warning.message)")
        let rows = try #require(Int(warning.message.split(separator: " ")[4]))
        #expect(rows > 0 && rows < target.height)
        let cut = image.firstFrame.bytesPerRow * rows
        #expect(image.firstFrame.bytes.prefix(cut) == complete.firstFrame.bytes.prefix(cut), "the rows libwebp's scaler finished")
        #expect(image.firstFrame.bytes.dropFirst(cut).allSatisfy { $0 == 0 })
    }
}
