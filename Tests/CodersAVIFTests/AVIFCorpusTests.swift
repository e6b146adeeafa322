import CodersAVIF
import Foundation
import PipelineCore
import TestSupport
import Testing

/// The AVIF files of `Tests/Fixtures/corpus/avif` (made by its `make-fixtures.py`, the way
/// libavif's own test files were made) decode as libavif 1.x decodes them, to the manifest's size
/// and frame count, or are refused with `badImageData`; no AV1 tool is needed to run them.
struct AVIFCorpusTests {
    @Test("each file decodes to the manifest's size and frames, or is refused", arguments: Corpus.rows("avif"))
    func manifestRow(_ row: Corpus.Row) throws {
        let data = try Data(contentsOf: row.url)
        guard row.expectDecode else {
            #expect {
                try AVIFCoder().decode(data, options: ImageDecodeOptions())
            } throws: { error in
                guard case ImagePipeError.badImageData = error else { return false }
                return true
            }
            return
        }
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.pixelSize == ImageSize(width: row.width, height: row.height))
        #expect(image.frameCount == row.frames)
        for index in 0..<image.frameCount { #expect(try image.frame(at: index).size == image.pixelSize) }
        let estimate = try #require(AVIFCoder().decodeEstimate(for: data, options: ImageDecodeOptions()))
        #expect(estimate.outputSize == image.pixelSize)
    }

    @Test("the manifest lists every file of the folder")
    func manifestIsComplete() throws {
        let folder = Corpus.root.appendingPathComponent("avif")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".avif") }
        #expect(Set(files) == Set(Corpus.rows("avif").map(\.file)))
        #expect(files.count >= 10)
    }

    @Test("truncated and corrupted copies decode or fail with an ImagePipeError, never crash", arguments: Corpus.rows("avif"))
    func hostileCopies(_ row: Corpus.Row) throws {
        let data = try Data(contentsOf: row.url)
        var copies = stride(from: 0, to: data.count, by: max(data.count / 64, 1)).map { data.prefix($0) }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<64 {
            var bytes = [UInt8](data)
            for _ in 0..<3 { bytes[Int.random(in: 8..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
            copies.append(Data(bytes))
        }
        for copy in copies {
            do {
                let image = try AVIFCoder().decode(copy, options: ImageDecodeOptions())
                for index in 0..<image.frameCount { _ = try image.frame(at: index) }
            } catch {
                #expect(error is ImagePipeError, "\(copy.count) bytes: \(error)")
            }
        }
    }
}

/// The corpus files and the pictures they were encoded from (`TestPNGWriter.pattern`, losslessly).
enum AVIFCorpusFile {
    static func data(_ name: String) throws -> Data { try Corpus.data("avif", name) }

    static func decode(_ name: String, options: ImageDecodeOptions = ImageDecodeOptions()) throws -> Image {
        try AVIFCoder().decode(try data(name), options: options)
    }

    /// The pattern with its alpha made opaque (a file without alpha decodes to that).
    static func opaque(_ rgba: [UInt8]) -> [UInt8] {
        var bytes = rgba
        for index in stride(from: 3, to: bytes.count, by: 4) { bytes[index] = 255 }
        return bytes
    }

    /// The `width` x `height` rectangle at (`x`, `y`) of RGBA pixels `stride` wide.
    static func crop(_ rgba: [UInt8], width stride: Int, x: Int, y: Int, _ width: Int, _ height: Int) -> [UInt8] {
        var out: [UInt8] = []
        for row in y..<y + height {
            let start = (row * stride + x) * 4
            out += rgba[start..<start + width * 4]
        }
        return out
    }
}
