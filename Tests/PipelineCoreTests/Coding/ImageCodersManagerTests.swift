import Foundation
import TestSupport
import Testing

@testable import PipelineCore

@Suite("Coders manager")
struct ImageCodersManagerTests {
    @Test("The coder added last that accepts the bytes decodes them")
    func priority() throws {
        let first = TestCoder(name: "first")
        let second = TestCoder(name: "second")
        let manager = ImageCodersManager()
        manager.add(first)
        manager.add(second)
        _ = try manager.decode(TestCoder.sample(), options: ImageDecodeOptions())
        #expect(second.decodes.count == 1)
        #expect(first.decodes.count == 0)
        #expect((manager.coder(for: TestCoder.sample()) as? TestCoder)?.name == "second")
        #expect(manager.coders.map { ($0 as! TestCoder).name } == ["first", "second"])
    }

    @Test("The first coder that claims the bytes decides, even when it fails (no fallback)")
    func noFallback() {
        let manager = ImageCodersManager()
        let good = TestCoder(name: "good")
        manager.add(good)
        manager.add(TestCoder(name: "greedy", claimsEverything: true))
        let png = Data([0x89, 0x50, 0x4E, 0x47])
        #expect(throws: ImagePipeError.badImageData(reason: "not a TIMG")) {
            try manager.decode(png, options: ImageDecodeOptions())
        }
        #expect(good.decodes.count == 0)
    }

    @Test("Bytes of no image format say so without an internal name, and show how they start")
    func notAnImage() {
        let manager = ImageCodersManager(coders: [TestCoder()])
        let error = #expect(throws: ImagePipeError.self) {
            try manager.decode(Data("<!DOCTYPE html>\n\u{1}".utf8), options: ImageDecodeOptions())
        }
        #expect(error?.description == #"not an image format any registered coder knows: they start with 3C 21 44 4F 43 54 59 50 ("<!DOCTYP")"#)
        #expect(error?.description.contains("undefined") == false)
    }

    @Test("Bytes no coder claims fail with unsupportedFormat naming the sniffed format")
    func unsupported() {
        let manager = ImageCodersManager(coders: [TestCoder()])
        #expect(throws: ImagePipeError.unsupportedFormat(.png, reason: "no registered coder decodes it")) {
            try manager.decode(Data([0x89, 0x50, 0x4E, 0x47]), options: ImageDecodeOptions())
        }
        #expect(throws: ImagePipeError.badImageData(reason: "no bytes")) {
            try manager.decode(Data(), options: ImageDecodeOptions())
        }
        #expect(!manager.canDecode(Data("GIF89a".utf8)))
        #expect(manager.canEncode(to: TestCoder.format))
        #expect(!manager.canEncode(to: .webp))
        #expect(throws: ImagePipeError.unsupportedFormat(.webp, reason: "no registered coder encodes it")) {
            try manager.encode(Image(try PixelBuffer(width: 1, height: 1, format: .rgb8)), as: .webp, options: ImageEncodeOptions())
        }
    }

    @Test("Removing by type and the shared registry's independence")
    func removeAndInstances() {
        let manager = ImageCodersManager(coders: [TestCoder()])
        manager.remove(TestCoder.self)
        #expect(manager.coders.isEmpty)
        #expect(ImageCodersManager.shared !== manager)
    }

    @Test("Decoding records the options used, so thumbnails can be told apart")
    func decodeRecordsOptions() throws {
        let manager = ImageCodersManager(coders: [TestCoder()])
        let options = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 2, height: 2))
        let image = try manager.decodeImage(TestCoder.sample(), options: options)
        #expect(image.metadata.decodeOptions == options)
        #expect(image.isThumbnail)
        // A coder named in the context is used as is.
        var context = ImageContext()
        let named = TestCoder(name: "named")
        context[.imageCoder] = named
        _ = try manager.decodeImage(TestCoder.sample(), options: ImageDecodeOptions(), context: context)
        #expect(named.decodes.count == 1)
    }

    @Test("Adding and removing coders while other tasks decode never breaks a decode")
    func concurrentMutation() async throws {
        let manager = ImageCodersManager(coders: [TestCoder(name: "base")])
        let sample = TestCoder.sample()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var decoded = 0
                    for _ in 0..<500 {
                        let image = try manager.decode(sample, options: ImageDecodeOptions())
                        if image.pixelSize == ImageSize(width: 4, height: 3) { decoded += 1 }
                    }
                    return decoded
                }
            }
            group.addTask {
                for i in 0..<500 {
                    manager.add(TestCoder(name: "extra\(i)"))
                    if i % 2 == 0 { manager.coders = Array(manager.coders.prefix(3)) }
                }
                return 500
            }
            var total = 0
            for try await count in group { total += count }
            #expect(total == 2500)
        }
    }
}
