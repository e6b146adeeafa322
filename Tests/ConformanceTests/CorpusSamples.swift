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

    static func sample(_ row: Corpus.Row, format: ImageFormat) throws -> CoderSample {
        CoderSample(
            name: row.testDescription, data: try Data(contentsOf: row.url), format: format,
            size: ImageSize(width: row.width, height: row.height), frameCount: row.frames,
            loopCount: row.frames > 1 && row.notes.contains("loop=0") ? 0 : nil)
    }
}
