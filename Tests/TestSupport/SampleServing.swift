import Foundation
import PipelineCore

/// A fixture whose `TestLoader` answers URLs with `TestCoder` sample images.
public protocol SampleServing {
    var loader: TestLoader { get }
}

extension SampleServing {
    /// Serves a `width` x `height` TIMG image of `color` at `url`, and returns its bytes.
    @discardableResult
    public func serve(_ url: String, width: Int = 40, height: Int = 20, color: ImageColor = .white) -> Data {
        let data = TestCoder.sample(width: width, height: height, color: color)
        loader.answer(url, with: .data(data))
        return data
    }

    /// Serves a square `width`-wide TIMG image at `url`, held back by `gate` when one is given, so a
    /// test decides the order of events instead of racing delays.
    public func serve(_ url: URL, width: Int, gate: Gate? = nil) {
        loader.answer(url, with: .data(TestCoder.sample(width: width, height: width)), gate: gate)
    }
}
