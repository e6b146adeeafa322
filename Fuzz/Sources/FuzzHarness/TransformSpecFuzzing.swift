import Foundation
import ImagePipe
import PipelineCore

/// `--transform` specs as a user may type them: one per line, parsed alone and as a chain. A spec
/// parses to a transformer with a key, or fails with `TransformerSpec.ParseError`. Transformers
/// whose output is small by construction are also applied to a small image, so the numbers the
/// parser lets through are used for real.
enum TransformSpecFuzzing {
    static let maxSpecs = 8
    /// Pixels a resize or crop may produce and still be applied here. Larger outputs are the
    /// transformers' own pixel limit to refuse, which this target does not judge.
    static let maxAppliedPixels = 4096

    static func run(_ data: Data) throws(FuzzViolation) {
        let text = String(decoding: data, as: UTF8.self)
        let specs = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(maxSpecs).map(String.init)
        var parsed: [any ImageTransformer] = []
        for spec in specs {
            do {
                let transformer = try TransformerSpec.builtIn.parse(spec)
                _ = transformer.key
                parsed.append(transformer)
            } catch let error as TransformerSpec.ParseError {
                guard error.spec == spec, !error.reason.isEmpty else {
                    throw FuzzViolation("parse error names spec '\(error.spec)' for '\(spec)'")
                }
            } catch {
                throw FuzzViolation("parse('\(spec)') threw \(type(of: error)): \(error)")
            }
        }
        let chain: (any ImageTransformer)?
        do {
            chain = try TransformerSpec.builtIn.parse(specs)
        } catch is TransformerSpec.ParseError {
            guard parsed.count < specs.count else { throw FuzzViolation("chain refused specs that parse one by one") }
            return
        } catch {
            throw FuzzViolation("parse(\(specs)) threw \(type(of: error)): \(error)")
        }
        guard parsed.count == specs.count, let chain else {
            throw FuzzViolation("chain parsed specs that fail one by one")
        }
        guard parsed.allSatisfy(isSmall) else { return }
        do {
            let image = Image(try PixelBuffer(width: 7, height: 5, format: .rgba8, fill: ImageColor(red: 51, green: 102, blue: 153, alpha: 204)))
            _ = try chain.apply(to: image)
        } catch let error as ImagePipeError {
            _ = error.description
        } catch {
            throw FuzzViolation("applying \(specs) threw \(type(of: error)): \(error)")
        }
    }

    /// Whether applying `transformer` to a small image makes a small image, judged before applying.
    static func isSmall(_ transformer: any ImageTransformer) -> Bool {
        switch transformer {
        case let resize as ResizingTransformer:
            return (resize.size.pixelCount ?? .max) <= maxAppliedPixels
        case let crop as CroppingTransformer:
            let (pixels, overflow) = crop.rect.width.multipliedReportingOverflow(by: crop.rect.height)
            return !overflow && pixels <= maxAppliedPixels
        default:
            return true
        }
    }
}
