import Foundation
import PipelineCore

/// What a progressive coder must do: bytes fed in chunks of any size end in the one-shot image, and
/// no partial image is larger than it.
enum ProgressiveCoderContracts {
    static func check(_ coder: any ProgressiveImageCoder, _ sample: CoderSample, _ final: Image, _ options: CoderConformance.Options, _ log: inout FailureLog) async {
        let data = sample.data
        for chunk in Set([max(data.count / 7, 1), max(data.count / 3, 1), 4096]).sorted() {
            let outcome = await TimeBound.run(options.timeLimit) { () -> (Image?, [ImageSize]) in
                let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
                var partialSizes: [ImageSize] = []
                var end = 0
                while end < data.count {
                    end = min(end + chunk, data.count)
                    decoder.update(data.prefix(end), isComplete: end == data.count)
                    if end < data.count, let partial = try decoder.currentImage() { partialSizes.append(partial.pixelSize) }
                }
                return (try decoder.currentImage(), partialSizes)
            }
            guard case .returned(let (image, partialSizes)) = outcome else {
                log.fail("progressive.chunks", sample.name, "feeding \(chunk)-byte chunks failed: \(outcome)")
                continue
            }
            for size in partialSizes where size.width > final.pixelSize.width || size.height > final.pixelSize.height {
                log.fail("progressive.partialSize", sample.name, "a partial image is \(size), larger than the final \(final.pixelSize)")
                break
            }
            guard let image else {
                log.fail("progressive.chunks", sample.name, "no image after all \(data.count) bytes in \(chunk)-byte chunks")
                continue
            }
            log.expect(
                image.pixelSize == final.pixelSize && image.firstFrame == final.firstFrame, "progressive.chunks", sample.name,
                "the image after \(chunk)-byte chunks differs from the one-shot decode")
        }
    }
}
