import Foundation
import PipelineConformance
import PipelineCore
import TestSupport

/// Corpus manifest rows as kit samples: the manifest's size and frame count are what the coder
/// must produce; loop count 0 (forever) is checked when the manifest's reference decoder saw it.
enum CorpusSamples {
    /// The rows of `suite` named in `files` (paths as in the manifest), in that order.
    static func rows(_ suite: String, _ files: [String]) -> [Corpus.Row] {
        let all = Corpus.rows(suite)
        return files.compactMap { file in all.first { $0.file == file } }
    }

    /// `reference`: a PNG in the suite (path relative to it) holding the first frame's expected
    /// pixels, read by TestSupport's own PNG reader so the coder is not checked against itself.
    static func sample(_ row: Corpus.Row, format: ImageFormat, reference: String? = nil, tolerance: Int = 0) throws -> CoderSample {
        var pixels: PixelBuffer?
        if let reference {
            let url = Corpus.root.appendingPathComponent(row.suite).appendingPathComponent(reference)
            guard let png = ReferencePNG.read(url) else { throw CorpusSampleError.unreadableReference(reference) }
            pixels = try PixelBuffer(width: png.width, height: png.height, format: .rgba8, bytes: png.rgba)
        }
        return CoderSample(
            name: row.testDescription, data: try Data(contentsOf: row.url), format: format,
            size: ImageSize(width: row.width, height: row.height), frameCount: row.frames,
            loopCount: row.frames > 1 && row.notes.contains("loop=0") ? 0 : nil,
            reference: pixels, tolerance: tolerance)
    }
}

enum CorpusSampleError: Error {
    case unreadableReference(String)
}
