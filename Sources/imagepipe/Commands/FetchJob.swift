import CacheRedis
import Foundation
import ImagePipe
import Logging
import PipelineCore
import ToolSupport

/// One `fetch` run's settings, and the work for one source.
struct FetchJob: Sendable {
    let manager: ImageManager
    /// With `--redis`: where a source `RedisSharedLoader` already stored in Redis keeps its original.
    let sharedSourceOriginals: (any ImageCache)?
    let options: ImageOptions
    let context: ImageContext
    let thumbnail: ImageSize?
    let format: ImageFormat?
    let encodeOptions: ImageEncodeOptions
    let outputFolder: OutputFolder?
    let names: [String]
    let warningOptions: WarningOptions
    let logger: Logger

    struct Outcome {
        var json = JSONLine()
        var warnings: [ImageDecodeWarning] = []
        var error: String?
    }

    func process(_ source: String, index: Int, progress: ProgressBar) async -> Outcome {
        let start = ContinuousClock.now
        var outcome = Outcome()
        outcome.json.add("source", source)
        do {
            guard let url = SourceParser.url(for: source) else { throw ImagePipeError.invalidURL(source) }
            logger.debug("loading \(url.absoluteString)")
            var context = self.context
            if let sharedSourceOriginals, RedisSharedLoader.shares(url) { context[.originalImageCache] = sharedSourceOriginals }
            let task = manager.imageTask(with: url, options: options, context: context)
            let result = try await withTaskCancellationHandler {
                try await task.result()
            } onCancel: {
                task.cancel()
            }
            guard let image = result.image else {
                throw FetchError.notCached
            }
            // Before anything is encoded or written: a refused source leaves no output file.
            outcome.warnings = result.warnings
            try warningOptions.check(outcome.warnings)
            // A thumbnail's or first frame's result carries no data (it no longer describes the
            // image); the loader's count still says what was read.
            let loadedBytes = result.data?.count ?? result.metrics?.loadedBytes ?? 0
            progress.received(Int64(loadedBytes))
            logger.debug("\(url.absoluteString): \(image.pixelSize) from \(result.cacheType.rawValue)")
            let upright = try ImageOutput.upright(image, thumbnail: thumbnail)
            var written: String?
            var bytes = loadedBytes
            var format = upright.format
            var frames = upright.frameCount
            if let outputFolder {
                let target = self.format ?? (ImageOutput.writableFormats.contains(image.format) ? image.format : .png)
                let data = try ImageOutput.encode(upright, originalData: result.data, as: target, options: encodeOptions)
                let file = try outputFolder.write(data, stem: names[index], fileExtension: target.preferredFileExtension ?? target.identifier)
                written = file
                bytes = data.count
                format = target
                if !target.supportsAnimation { frames = 1 }
            }
            outcome.json.add("output", written)
            outcome.json.add("cacheType", result.cacheType.rawValue)
            outcome.json.add("format", format.identifier)
            outcome.json.add("width", upright.pixelSize.width)
            outcome.json.add("height", upright.pixelSize.height)
            outcome.json.add("frames", frames)
            outcome.json.add("bytes", bytes)
        } catch {
            let message = (error as? FetchError)?.description ?? DecodeLimitOptions.describe(error)
            outcome.error = message
            outcome.json.add("output", nil as String?)
            outcome.json.add("cacheType", ImageCacheType.none.rawValue)
        }
        outcome.json.add("warnings", DecodeWarnings.json(outcome.warnings))
        let elapsed = ContinuousClock.now - start
        outcome.json.add("ms", Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
        if let error = outcome.error { outcome.json.add("error", error) }
        return outcome
    }
}

enum FetchError: Error, CustomStringConvertible {
    case notCached
    var description: String { "not in the cache (fromCacheOnly)" }
}
