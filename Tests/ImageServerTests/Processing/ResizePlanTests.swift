import PipelineCore
import Testing

@testable import ImageServer

@Suite("Resize geometry")
struct ResizePlanTests {
    func plan(_ w: Int, _ h: Int, _ type: ProcessingOptions.ResizingType, _ width: Int, _ height: Int, enlarge: Bool = false) -> ResizePlan {
        var options = ProcessingOptions()
        options.resizingType = type
        options.width = width
        options.height = height
        options.enlarge = enlarge
        return ResizePlan(source: ImageSize(width: w, height: h), options: options)
    }

    @Test("fit keeps the aspect inside the box; a 0 side follows the other; nothing grows without enlarge")
    func fit() {
        #expect(plan(1000, 500, .fit, 300, 300).output == ImageSize(width: 300, height: 150))
        #expect(plan(1000, 500, .fit, 0, 100).output == ImageSize(width: 200, height: 100))
        #expect(plan(1000, 500, .fit, 100, 0).output == ImageSize(width: 100, height: 50))
        #expect(plan(100, 50, .fit, 300, 300).output == ImageSize(width: 100, height: 50))
        #expect(plan(100, 50, .fit, 300, 300, enlarge: true).output == ImageSize(width: 300, height: 150))
        #expect(plan(100, 50, .fit, 0, 0).output == ImageSize(width: 100, height: 50))
        #expect(plan(1000, 500, .fit, 300, 300).cropSize == nil)
    }

    @Test("fill covers the box and crops the overflow, never more than it has")
    func fill() {
        let p = plan(1000, 500, .fill, 300, 300)
        #expect(p.scaled == ImageSize(width: 600, height: 300))
        #expect(p.output == ImageSize(width: 300, height: 300))
        #expect(plan(200, 100, .fill, 300, 300).output == ImageSize(width: 200, height: 100))
        #expect(plan(200, 100, .fill, 150, 300).output == ImageSize(width: 150, height: 100))
        #expect(plan(200, 100, .fill, 300, 300, enlarge: true).output == ImageSize(width: 300, height: 300))
        #expect(plan(1000, 500, .fill, 0, 100).output == ImageSize(width: 200, height: 100))
    }

    @Test("force stretches each side; auto is fill for matching orientations, fit otherwise")
    func forceAndAuto() {
        #expect(plan(1000, 500, .force, 300, 300).output == ImageSize(width: 300, height: 300))
        #expect(plan(1000, 500, .force, 300, 0).output == ImageSize(width: 300, height: 150))
        #expect(plan(1000, 500, .auto, 400, 300).output == ImageSize(width: 400, height: 300))
        #expect(plan(1000, 500, .auto, 300, 400).output == ImageSize(width: 300, height: 150))
    }

    @Test("gravity places the crop window at edges, corners, centre or a focus point")
    func gravity() {
        let scaled = ImageSize(width: 600, height: 300), crop = ImageSize(width: 300, height: 300)
        #expect(ResizePlan.origin(of: crop, in: scaled, gravity: .west) == (0, 0))
        #expect(ResizePlan.origin(of: crop, in: scaled, gravity: .east) == (300, 0))
        #expect(ResizePlan.origin(of: crop, in: scaled, gravity: .center) == (150, 0))
        #expect(ResizePlan.origin(of: crop, in: scaled, gravity: .southEast) == (300, 0))
        #expect(ResizePlan.origin(of: crop, in: scaled, gravity: .focusPoint(x: 0.9, y: 0.5)) == (300, 0))
        #expect(ResizePlan.origin(of: crop, in: scaled, gravity: .focusPoint(x: 0.4, y: 0.5)) == (90, 0))
    }

    @Test("smart gravity picks the detailed window over a flat one")
    func smartCrop() throws {
        // Left half flat gray, right half a checkerboard.
        var bytes = [UInt8](repeating: 128, count: 200 * 100)
        for y in 0..<100 { for x in 100..<200 where (x / 4 + y / 4) % 2 == 0 { bytes[y * 200 + x] = 255 } }
        let buffer = try PixelBuffer(width: 200, height: 100, format: .gray8, bytes: bytes)
        let origin = SmartCrop.origin(of: ImageSize(width: 100, height: 100), in: buffer)
        #expect(origin.x == 100 && origin.y == 0)
    }
}
