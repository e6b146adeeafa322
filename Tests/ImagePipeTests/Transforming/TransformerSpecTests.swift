import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Transform specs")
struct TransformerSpecTests {
    @Test(
        "Each spelling gives its transformer, keyed as SDWebImage would",
        arguments: [
            ("resize:100x50", "SDImageResizingTransformer({100.000000,50.000000},0)"),
            ("resize:100x50:fit", "SDImageResizingTransformer({100.000000,50.000000},1)"),
            ("resize:100x50:cover", "SDImageResizingTransformer({100.000000,50.000000},2)"),
            ("crop:1,2,30,40", "SDImageCroppingTransformer({1.000000,2.000000,30.000000,40.000000})"),
            ("round:8", "SDImageRoundCornerTransformer(8.000000,18446744073709551615,0.000000,#00000000)"),
            ("rotate:90", "SDImageRotationTransformer(-1.570796,1)"),
            ("flip:h", "SDImageFlippingTransformer(1,0)"),
            ("flip:v", "SDImageFlippingTransformer(0,1)"),
            ("tint:#ff000080", "SDImageTintTransformer(#80ff0000,20)"),
            ("grayscale", "ImagePipeGrayscaleTransformer()"),
            ("blur:2.5", "SDImageBlurTransformer(2.500000)"),
        ])
    func spellings(spec: String, key: String) throws {
        #expect(try TransformerSpec.parse(spec).key == key)
    }

    @Test(
        "Bad specs are refused with a reason",
        arguments: [
            "resize", "resize::", "resize:0x5", "resize:10x10:stretch", "crop:1,2,3", "crop:0,0,0,5", "round:-1",
            "rotate:abc", "flip:x", "tint:red", "grayscale:1", "blur:-2", "sharpen:1", "",
        ])
    func refused(spec: String) {
        #expect(throws: TransformerSpec.ParseError.self) { try TransformerSpec.parse(spec) }
    }

    @Test(
        "Numbers outside their range are refused naming the range, overflowing ones included",
        arguments: [
            ("resize:9223372036854775807x1", "size must be WxH with W and H from 1 to 10000000"),
            ("resize:10000001x5", "size must be WxH with W and H from 1 to 10000000"),
            ("crop:9223372036854775807,0,10,10", "X and Y must be from -10000000 to 10000000"),
            ("crop:0,-10000001,10,10", "X and Y must be from -10000000 to 10000000"),
            ("crop:0,0,10000001,10", "width and height must be from 1 to 10000000"),
            ("round:1e300", "radius must be from 0 to 10000000"),
            ("round:-1", "radius must be from 0 to 10000000"),
            ("rotate:1e300", "angle must be from -360 to 360"),
            ("rotate:-361", "angle must be from -360 to 360"),
            ("blur:1001", "radius must be from 0 to 1000"),
        ])
    func outOfRange(spec: String, reason: String) {
        #expect(throws: TransformerSpec.ParseError(spec: spec, reason: reason)) { try TransformerSpec.parse(spec) }
    }

    @Test(
        "The ends of every range are accepted",
        arguments: [
            "resize:10000000x1", "crop:-10000000,10000000,10000000,1", "round:10000000", "rotate:-360", "rotate:360", "blur:1000",
        ])
    func rangeEnds(spec: String) throws {
        _ = try TransformerSpec.parse(spec)
    }

    @Test("Several specs chain in order")
    func chain() throws {
        #expect(try TransformerSpec.parse([]) == nil)
        #expect(try TransformerSpec.parse(["grayscale"])?.key == "ImagePipeGrayscaleTransformer()")
        let chained = try #require(try TransformerSpec.parse(["flip:h", "blur:1"]))
        #expect(chained.key == "SDImageFlippingTransformer(1,0)-SDImageBlurTransformer(1.000000)")
        let error = try? TransformerSpec.parse("sharpen:1")
        #expect(error == nil)
        do { _ = try TransformerSpec.parse("sharpen:1") } catch let error as TransformerSpec.ParseError {
            #expect(error.description.hasPrefix("invalid transform 'sharpen:1': unknown transform 'sharpen'"))
        }
    }
}
