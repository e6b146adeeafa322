import Foundation
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Built-in transformers")
struct TransformerTests {
    /// 40 x 20: left half red, right half blue, opaque.
    static func halves() throws -> Image {
        var bytes: [UInt8] = []
        for _ in 0..<20 { for x in 0..<40 { bytes += x < 20 ? [255, 0, 0] : [0, 0, 255] } }
        return Image(try PixelBuffer(width: 40, height: 20, format: .rgb8, bytes: bytes), format: .png)
    }

    @Test("Keys print as SDWebImage's, and a pipeline joins them with dashes")
    func keys() {
        let all: [any ImageTransformer] = [
            ResizingTransformer(size: ImageSize(width: 100, height: 50), scaleMode: .aspectFill),
            CroppingTransformer(rect: ImageRect(x: 0, y: 0, width: 50, height: 50)),
            RoundCornerTransformer(radius: 10, corners: .allCorners, borderWidth: 1, borderColor: .black),
            FlippingTransformer(horizontal: true, vertical: false),
            RotationTransformer(degreesClockwise: -45, fitSize: false),
            TintTransformer(color: ImageColor(red: 255, green: 0, blue: 0, alpha: 128)),
            BlurTransformer(radius: 5),
        ]
        let keys = all.map(\.key)
        #expect(
            keys == [
                "SDImageResizingTransformer({100.000000,50.000000},2)",
                "SDImageCroppingTransformer({0.000000,0.000000,50.000000,50.000000})",
                "SDImageRoundCornerTransformer(10.000000,18446744073709551615,1.000000,#ff000000)",
                "SDImageFlippingTransformer(1,0)",
                "SDImageRotationTransformer(0.785398,0)",
                "SDImageTintTransformer(#80ff0000,18)",
                "SDImageBlurTransformer(5.000000)",
            ])
        #expect(PipelineTransformer(all).key == keys.joined(separator: "-"))
        #expect(ResizingTransformer(size: ImageSize(width: 1, height: 1), filter: .catmullRom).key != ResizingTransformer(size: ImageSize(width: 1, height: 1)).key)
    }

    @Test("A pipeline of every built-in ends at the crop's size, marked transformed, keeping metadata")
    func pipeline() throws {
        let source = try Self.halves()
        let pipeline = PipelineTransformer([
            ResizingTransformer(size: ImageSize(width: 100, height: 50)),
            CroppingTransformer(rect: ImageRect(x: 10, y: 5, width: 60, height: 30)),
            RoundCornerTransformer(radius: 5, borderWidth: 1, borderColor: .white),
            FlippingTransformer(horizontal: true, vertical: true),
            RotationTransformer(degreesClockwise: 180, fitSize: true),
            TintTransformer(color: ImageColor(red: 0, green: 255, blue: 0, alpha: 64), blendMode: .sourceAtop),
            BlurTransformer(radius: 1),
            GrayscaleTransformer(),
        ])
        let output = try pipeline.transform(source)
        #expect(output.pixelSize == ImageSize(width: 60, height: 30))
        #expect(output.metadata.isTransformed)
        #expect(output.format == .png)
        #expect(source.pixelSize == ImageSize(width: 40, height: 20), "the input is untouched")
    }

    @Test("Resize modes: fill stretches, aspect fit fits without padding, aspect fill covers and crops the centre")
    func resize() throws {
        let source = try Self.halves()
        let fill = try ResizingTransformer(size: ImageSize(width: 30, height: 30), scaleMode: .fill).transform(source)
        #expect(fill.pixelSize == ImageSize(width: 30, height: 30))
        let fit = try ResizingTransformer(size: ImageSize(width: 30, height: 30), scaleMode: .aspectFit).transform(source)
        #expect(fit.pixelSize == ImageSize(width: 30, height: 15))
        let cover = try ResizingTransformer(size: ImageSize(width: 10, height: 20), scaleMode: .aspectFill).transform(source)
        #expect(cover.pixelSize == ImageSize(width: 10, height: 20))
        // The centre of a red|blue split: left of the cover is red, right is blue.
        #expect(cover.firstFrame.color(x: 0, y: 10).red > 200)
        #expect(cover.firstFrame.color(x: 9, y: 10).blue > 200)
    }

    @Test("Crop keeps the pixels inside and makes the outside transparent")
    func crop() throws {
        let source = try Self.halves()
        let inside = try CroppingTransformer(rect: ImageRect(x: 15, y: 0, width: 10, height: 5)).transform(source)
        #expect(inside.pixelFormat == .rgb8)
        #expect(inside.firstFrame.color(x: 0, y: 0) == ImageColor(red: 255, green: 0, blue: 0))
        #expect(inside.firstFrame.color(x: 9, y: 4) == ImageColor(red: 0, green: 0, blue: 255))
        let overhang = try CroppingTransformer(rect: ImageRect(x: 35, y: -5, width: 10, height: 10)).transform(source)
        #expect(overhang.pixelFormat == .rgba8)
        #expect(overhang.firstFrame.color(x: 0, y: 9).alpha == 255)
        #expect(overhang.firstFrame.color(x: 0, y: 0).alpha == 0)
        #expect(overhang.firstFrame.color(x: 9, y: 9).alpha == 0)
    }

    @Test("Round corners: the corner is transparent, the centre untouched, the border coloured at the edge")
    func roundCorner() throws {
        let source = Image(try PixelBuffer(width: 40, height: 40, format: .rgb8, fill: ImageColor(red: 0, green: 0, blue: 255)))
        let rounded = try RoundCornerTransformer(radius: 10, borderWidth: 2, borderColor: ImageColor(red: 255, green: 0, blue: 0)).transform(source).firstFrame
        #expect(rounded.format == .rgba8)
        #expect(rounded.color(x: 0, y: 0).alpha == 0)
        #expect(rounded.color(x: 20, y: 20) == ImageColor(red: 0, green: 0, blue: 255))
        #expect(rounded.color(x: 20, y: 0) == ImageColor(red: 255, green: 0, blue: 0))
        let some = try RoundCornerTransformer(radius: 10, corners: [.topLeft]).transform(source).firstFrame
        #expect(some.color(x: 0, y: 0).alpha == 0)
        #expect(some.color(x: 39, y: 0).alpha == 255)
    }

    @Test("Rotation: quarter turns move pixels exactly; other angles grow the canvas by √2 with fitSize and keep it without")
    func rotate() throws {
        let source = try Self.halves()
        let ccw = try RotationTransformer(degreesClockwise: -90).transform(source).firstFrame
        #expect(ccw.size == ImageSize(width: 20, height: 40))
        // Counter-clockwise: the left (red) half ends at the bottom.
        #expect(ccw.color(x: 10, y: 39) == ImageColor(red: 255, green: 0, blue: 0))
        #expect(ccw.color(x: 10, y: 0) == ImageColor(red: 0, green: 0, blue: 255))
        #expect(try RotationTransformer(degreesClockwise: 90).transform(source).firstFrame.color(x: 10, y: 0) == ImageColor(red: 255, green: 0, blue: 0))
        let square = Image(try PixelBuffer(width: 100, height: 100, format: .rgb8, fill: .white))
        let fitted = try RotationTransformer(degreesClockwise: -45, fitSize: true).transform(square).firstFrame
        #expect(abs(fitted.width - 142) <= 1 && abs(fitted.height - 142) <= 1)
        #expect(fitted.color(x: 0, y: 0).alpha == 0)
        #expect(fitted.color(x: 71, y: 71) == .white)
        let kept = try RotationTransformer(degreesClockwise: -45, fitSize: false).transform(square).firstFrame
        #expect(kept.size == ImageSize(width: 100, height: 100))
        #expect(kept.color(x: 0, y: 0).alpha == 0)
    }

    @Test("Flips mirror the pixels")
    func flip() throws {
        let source = try Self.halves()
        let h = try FlippingTransformer(horizontal: true, vertical: false).transform(source).firstFrame
        #expect(h.color(x: 0, y: 0).blue == 255)
        let v = try FlippingTransformer(horizontal: false, vertical: true).transform(source).firstFrame
        #expect(v.color(x: 0, y: 0).red == 255)
        #expect(try FlippingTransformer(horizontal: false, vertical: false).transform(source).firstFrame == source.firstFrame)
    }

    @Test("Flips move every pixel of an image that differs in each corner")
    func flipAsymmetric() throws {
        // 2 x 2: red green / blue white; each flip has exactly one right answer.
        let colors: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]]
        let source = Image(try PixelBuffer(width: 2, height: 2, format: .rgb8, bytes: colors.flatMap { $0 }))
        func grid(_ horizontal: Bool, _ vertical: Bool) throws -> [ImageColor] {
            let out = try FlippingTransformer(horizontal: horizontal, vertical: vertical).transform(source).firstFrame
            return [out.color(x: 0, y: 0), out.color(x: 1, y: 0), out.color(x: 0, y: 1), out.color(x: 1, y: 1)]
        }
        let original = try grid(false, false)
        #expect(try grid(true, false) == [original[1], original[0], original[3], original[2]])
        #expect(try grid(false, true) == [original[2], original[3], original[0], original[1]])
        #expect(try grid(true, true) == [original[3], original[2], original[1], original[0]])
        #expect(Set(original.map { "\($0)" }).count == 4)
    }

    @Test("Tint: source-in paints the shape in the tint colour; source-atop keeps the image under a translucent tint")
    func tint() throws {
        var bytes: [UInt8] = []
        for i in 0..<4 { bytes += [10, 20, 30, i < 2 ? 255 : 0] }
        let icon = Image(try PixelBuffer(width: 2, height: 2, format: .rgba8, bytes: bytes))
        let silhouette = try TintTransformer(color: ImageColor(red: 0, green: 200, blue: 0)).transform(icon).firstFrame
        #expect(silhouette.color(x: 0, y: 0) == ImageColor(red: 0, green: 200, blue: 0, alpha: 255))
        #expect(silhouette.color(x: 0, y: 1).alpha == 0)
        let photo = try Self.halves()
        let tinted = try TintTransformer(color: ImageColor(red: 0, green: 255, blue: 0, alpha: 128), blendMode: .sourceAtop).transform(photo).firstFrame
        #expect(tinted.format == .rgb8)
        let c = tinted.color(x: 0, y: 0)
        #expect((126...128).contains(c.red) && (127...129).contains(c.green) && c.blue == 0)
    }

    @Test("Blur softens an edge and leaves flat areas exactly as they were")
    func blur() throws {
        let blurred = try BlurTransformer(radius: 3).transform(try Self.halves()).firstFrame
        #expect(blurred.color(x: 0, y: 10) == ImageColor(red: 255, green: 0, blue: 0))
        let edge = blurred.color(x: 20, y: 10)
        #expect(edge.red > 40 && edge.red < 215 && edge.blue > 40)
        #expect(BlurTransformer(radius: 0).boxWidth == 1)
        #expect(try BlurTransformer(radius: 0).transform(try Self.halves()).firstFrame == (try Self.halves()).firstFrame)
    }

    @Test("Grayscale keeps alpha and gives luma")
    func grayscale() throws {
        let gray = try GrayscaleTransformer().transform(try Self.halves()).firstFrame
        #expect(gray.format == .gray8)
        #expect(gray.color(x: 0, y: 0).red == 77)
    }

    @Test("Transformers see the image upright: the orientation is applied first")
    func orientationFirst() throws {
        // Stored 20x40 with orientation .right: shown as 40x20.
        let stored = try Self.halves().firstFrame.applying(.left)
        let image = Image(stored, orientation: .right)
        let cropped = try CroppingTransformer(rect: ImageRect(x: 0, y: 0, width: 5, height: 5)).transform(image)
        #expect(cropped.orientation == .up)
        #expect(cropped.firstFrame.color(x: 0, y: 0) == ImageColor(red: 255, green: 0, blue: 0))
    }

    @Test("Animations are transformed frame by frame, lazily")
    func animated() throws {
        let provider = GrayRampProvider(frames: 10)
        let animation = Image(animation: try AnimatedImage(provider: provider))
        let resized = try ResizingTransformer(size: ImageSize(width: 4, height: 4)).transform(animation)
        #expect(resized.isAnimated && resized.frameCount == 10 && resized.pixelSize == ImageSize(width: 4, height: 4))
        let decodesBefore = provider.decodes.count
        #expect(try resized.frame(at: 7).bytes == [UInt8](repeating: 7, count: 16))
        #expect(provider.decodes.count == decodesBefore + 1)
    }
}
