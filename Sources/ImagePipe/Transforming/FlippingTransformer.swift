/// Mirrors horizontally and/or vertically (SDWebImage's `SDImageFlippingTransformer`).
import PipelineCore

public struct FlippingTransformer: PixelTransformer, DescribedTransformer {
    package let horizontal: Bool
    package let vertical: Bool

    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// Specs name the axes in one field: `h`, `v` or `hv`.
    private struct Axes: Sendable, Equatable { let horizontal, vertical: Bool }

    public static let transformerDescription = TransformerDescription<Self>(
        name: "flip", keyName: "SDImageFlippingTransformer",
        parameters: [
            .choice(
                "axes",
                [
                    (["h"], Axes(horizontal: true, vertical: false)), (["v"], Axes(horizontal: false, vertical: true)),
                    (["hv", "vh"], Axes(horizontal: true, vertical: true)),
                ]
            ) { "\($0.horizontal ? 1 : 0),\($0.vertical ? 1 : 0)" }
        ],
        make: {
            let axes: Axes = $0["axes"]
            return Self(horizontal: axes.horizontal, vertical: axes.vertical)
        })

    public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        switch (horizontal, vertical) {
        case (false, false): buffer
        case (true, false): buffer.applying(.upMirrored)
        case (false, true): buffer.applying(.downMirrored)
        case (true, true): buffer.applying(.down)
        }
    }
}
