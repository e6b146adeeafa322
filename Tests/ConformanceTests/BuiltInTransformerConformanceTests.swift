import Foundation
import ImagePipe
import PipelineConformance
import PipelineCore
import TestSupport
import Testing

/// The kit on every built-in transformer, each with variants that differ in one parameter (every
/// parameter that changes the output must change the key), on images of each 8-bit pixel format.
@Suite("Built-in transformers keep the kit's transformer contracts", .dedicatedThreads)
struct BuiltInTransformerConformanceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let transformer: any ImageTransformer
        let variants: [any ImageTransformer]
        var testDescription: String { transformer.key }
    }

    static let size = ImageSize(width: 40, height: 30)
    static let rect = ImageRect(x: 3, y: 2, width: 20, height: 10)

    static let cases: [Case] = [
        Case(
            transformer: ResizingTransformer(size: size),
            variants: [
                ResizingTransformer(size: ImageSize(width: 41, height: 30)),
                ResizingTransformer(size: size, scaleMode: .aspectFit), ResizingTransformer(size: size, scaleMode: .aspectFill),
                ResizingTransformer(size: size, filter: .triangle), ResizingTransformer(size: size, filter: .catmullRom),
            ]),
        Case(
            transformer: CroppingTransformer(rect: rect),
            variants: [
                CroppingTransformer(rect: ImageRect(x: 4, y: 2, width: 20, height: 10)), CroppingTransformer(rect: ImageRect(x: 3, y: 2, width: 20, height: 11)),
            ]),
        Case(
            transformer: RoundCornerTransformer(radius: 6),
            variants: [
                RoundCornerTransformer(radius: 7), RoundCornerTransformer(radius: 6, corners: .topLeft),
                RoundCornerTransformer(radius: 6, borderWidth: 2, borderColor: .black), RoundCornerTransformer(radius: 6, borderWidth: 2, borderColor: .white),
            ]),
        Case(
            transformer: RotationTransformer(degreesClockwise: 30),
            variants: [
                RotationTransformer(degreesClockwise: 31), RotationTransformer(degreesClockwise: 30, fitSize: false), RotationTransformer(degreesClockwise: 90),
            ]),
        Case(
            transformer: FlippingTransformer(horizontal: true, vertical: false),
            variants: [
                FlippingTransformer(horizontal: false, vertical: true), FlippingTransformer(horizontal: true, vertical: true),
            ]),
        Case(
            transformer: TintTransformer(color: ImageColor(red: 10, green: 200, blue: 30, alpha: 128)),
            variants: [
                TintTransformer(color: ImageColor(red: 10, green: 200, blue: 31, alpha: 128)),
                TintTransformer(color: ImageColor(red: 10, green: 200, blue: 30, alpha: 128), blendMode: .multiply),
                TintTransformer(color: ImageColor(red: 10, green: 200, blue: 30, alpha: 128), blendMode: .sourceAtop),
            ]),
        Case(transformer: GrayscaleTransformer(), variants: [BlurTransformer(radius: 1)]),
        Case(transformer: BlurTransformer(radius: 2), variants: [BlurTransformer(radius: 3), BlurTransformer(radius: 2.5)]),
        Case(
            transformer: PipelineTransformer([GrayscaleTransformer(), CroppingTransformer(rect: rect)]),
            variants: [
                PipelineTransformer([CroppingTransformer(rect: rect), GrayscaleTransformer()]), PipelineTransformer([GrayscaleTransformer()]),
            ]),
    ]

    /// A gradient in each 8-bit pixel format, so no transformer is checked on flat colour only.
    static func samples() throws -> [Image] {
        var pixels: [UInt8] = []
        for y in 0..<48 { for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 5), UInt8((x + y) * 2), UInt8(255 - x)] } }
        let rgba = try PixelBuffer(width: 64, height: 48, format: .rgba8, bytes: pixels)
        return [PixelFormat.rgba8, .rgb8, .grayAlpha8, .gray8].map { Image(rgba.converted(to: $0), format: .png) }
    }

    @Test("each built-in transformer and its variants", arguments: cases)
    func transformer(_ item: Case) async throws {
        await TransformerConformance.check(item.transformer, variants: item.variants, samples: try Self.samples())
    }
}
