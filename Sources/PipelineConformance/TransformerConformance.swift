import Foundation
import PipelineCore
import Testing

/// The contracts every `ImageTransformer` keeps: a stable key that differs when the output would,
/// deterministic output, untouched input, the metadata rule, and for a `PixelTransformer` an
/// `outputSize(for:)` that is the size it makes.
///
/// `variants` are the same transformer with other parameters: each must have another key.
public enum TransformerConformance {
    public static func check(
        _ transformer: some ImageTransformer, variants: [any ImageTransformer], samples: [Image],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await failures(for: transformer, variants: variants, samples: samples).recordIssues(sourceLocation: sourceLocation)
    }

    public static func failures(for transformer: some ImageTransformer, variants: [any ImageTransformer], samples: [Image]) async -> [ConformanceFailure] {
        var log = FailureLog()
        let name = String(describing: type(of: transformer))
        let key = transformer.key
        log.expect(!key.isEmpty, "transformer.key", name, "the key is empty; it must describe the output")
        log.expect(transformer.key == key, "transformer.keyStable", name, "the key changed between two reads")
        if variants.isEmpty { log.fail("transformer.keyDistinct", name, "give at least one variant with other parameters") }
        for variant in variants where variant.key == key {
            log.fail("transformer.keyDistinct", name, "a variant with other parameters has the same key '\(key)': cached outputs would collide")
        }
        if samples.isEmpty { log.fail("samples", name, "give at least one sample image") }
        for (index, sample) in samples.enumerated() {
            let label = "\(name) on sample \(index) (\(sample.pixelSize))"
            let before = sample.firstFrame
            do {
                let first = try transformer.apply(to: sample)
                let second = try transformer.apply(to: sample)
                log.expect(
                    first.pixelSize == second.pixelSize && first.firstFrame == second.firstFrame, "transformer.deterministic", label,
                    "two runs on the same input gave different images")
                log.expect(sample.firstFrame == before, "transformer.doesNotMutate", label, "the input's pixels changed")
                log.expect(!first.pixelSize.isEmpty, "transformer.output", label, "the output has no pixels")
                if let pixels = transformer as? any PixelTransformer {
                    // The size checked against the pixel limit before allocating must be the size made.
                    let declared = try pixels.outputSize(for: sample.displaySize)
                    log.expect(
                        declared == first.pixelSize, "transformer.outputSize", label,
                        "outputSize(for:) says \(declared), the transform made \(first.pixelSize)")
                }
                if !transformer.preservesImageMetadata && sample.format != .undefined {
                    // Opting out of the pipeline's metadata copy is a promise to set it yourself.
                    let raw = try transformer.transform(sample)
                    log.expect(
                        raw.format != .undefined, "transformer.metadata", label,
                        "preservesImageMetadata is false, so the transformer must set the output's format itself; it is undefined")
                }
            } catch {
                log.fail("transformer.output", label, "transforming failed: \(error)")
            }
        }
        return log.failures
    }
}
