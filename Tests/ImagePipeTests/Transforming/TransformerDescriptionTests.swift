import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Transformer descriptions")
struct TransformerDescriptionTests {
    @Test(
        "A spec and the Swift call it spells give the same key: one unit for rotation, degrees clockwise",
        arguments: [
            ("rotate:90", RotationTransformer(degreesClockwise: 90) as any ImageTransformer),
            ("rotate:-30", RotationTransformer(degreesClockwise: -30)),
            ("resize:10x20:cover", ResizingTransformer(size: ImageSize(width: 10, height: 20), scaleMode: .aspectFill)),
            ("crop:-1,2,3,4", CroppingTransformer(rect: ImageRect(x: -1, y: 2, width: 3, height: 4))),
            ("round:3", RoundCornerTransformer(radius: 3)),
            ("flip:vh", FlippingTransformer(horizontal: true, vertical: true)),
            ("tint:#10203040", TintTransformer(color: ImageColor(red: 16, green: 32, blue: 48, alpha: 64), blendMode: .sourceAtop)),
            ("GreyScale", GrayscaleTransformer()),
            ("blur:0.5", BlurTransformer(radius: 0.5)),
        ])
    func specMatchesCall(spec: String, transformer: any ImageTransformer) throws {
        #expect(try TransformerSpec.parse(spec).key == transformer.key)
    }

    @Test("The usage line and the help derive from the descriptions, units and defaults included")
    func usageAndHelp() {
        #expect(TransformerSpec.usage == "resize:WxH[:fill|fit|cover], crop:X,Y,W,H, round:R, rotate:DEG, flip:h|v|hv, tint:#RRGGBB[AA], grayscale, blur:R")
        let help = TransformerSpec.builtIn.help
        #expect(help.contains("rotate:DEG\n    DEG: number, degrees clockwise, -360 to 360"))
        #expect(help.contains("fill|fit|cover: one of fill, fit, cover, default fill"))
        #expect(help.contains("blur:R\n    R: number, pixels, 0 to 1000"))
    }

    @Test("An empty optional field means its default; missing or extra fields are refused naming the spelling")
    func fields() throws {
        #expect(try TransformerSpec.parse("resize:10x10:").key == ResizingTransformer(size: ImageSize(width: 10, height: 10)).key)
        #expect(throws: TransformerSpec.ParseError(spec: "resize:1x1:fit:2", reason: "expected resize:WxH[:fill|fit|cover]")) {
            try TransformerSpec.parse("resize:1x1:fit:2")
        }
        #expect(throws: TransformerSpec.ParseError(spec: "blur", reason: "'blur' needs radius: blur:R")) { try TransformerSpec.parse("blur") }
        #expect(throws: TransformerSpec.ParseError(spec: "blur:", reason: "radius '' is not a number")) { try TransformerSpec.parse("blur:") }
        #expect(throws: TransformerSpec.ParseError(spec: "blur::1", reason: "expected blur:R")) { try TransformerSpec.parse("blur::1") }
    }

    /// What a plugin writes: a transformer described once, its key and spec derived.
    struct Posterize: PixelTransformer, DescribedTransformer {
        let levels: Double
        static let transformerDescription = TransformerDescription<Self>(
            name: "posterize", keyName: "MyPosterize",
            parameters: [.number("levels", placeholder: "N", unit: "levels per channel", in: 2...256, default: 4) { $0.levels }],
            make: { Self(levels: $0["levels"]) })
        func transform(_ buffer: PixelBuffer) throws -> PixelBuffer { buffer }
    }

    @Test("A plugin's described transformer gets its key, spec and usage from its description")
    func pluginTransformer() throws {
        let spec = TransformerSpec(TransformerSpec.builtIn.spellings + [Posterize.transformerDescription])
        #expect(Posterize(levels: 8).key == "MyPosterize(8.000000)")
        #expect(try spec.parse("posterize:8").key == "MyPosterize(8.000000)")
        #expect(try spec.parse("posterize").key == "MyPosterize(4.000000)")
        #expect(try spec.parse(["posterize:3", "grayscale"])?.key == "MyPosterize(3.000000)-ImagePipeGrayscaleTransformer()")
        #expect(spec.usage.hasSuffix(", blur:R, posterize[:N]"))
        #expect(throws: TransformerSpec.ParseError(spec: "posterize:1", reason: "levels must be from 2 to 256")) { try spec.parse("posterize:1") }
        #expect(throws: TransformerSpec.ParseError.self) { try TransformerSpec.parse("posterize:8") }
    }
}
