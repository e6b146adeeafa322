import PipelineCore
import Testing

@testable import ImageServer

@Suite("Resize geometry, by imgproxy's rules")
struct ResizePlanTests {
    /// imgproxy's `testdata/geometry.png`: 200×100.
    static let source = ImageSize(width: 200, height: 100)

    static func plan(_ change: (inout ProcessingOptions) -> Void) -> ResizePlan {
        var options = ProcessingOptions()
        change(&options)
        return ResizePlan(source: source, options: options)
    }

    static func plan(_ type: ProcessingOptions.ResizingType, _ width: Int, _ height: Int, enlarge: Bool = false, extend: Bool = false, aspect: Bool = false)
        -> ResizePlan
    {
        plan {
            $0.resizingType = type
            $0.width = width
            $0.height = height
            $0.enlarge = enlarge
            $0.extend.enabled = extend
            $0.extendAspectRatio.enabled = aspect
        }
    }

    /// imgproxy 4's `processing/processing_test.go`: (type, flags, box, result) for a 200×100 source.
    @Test(
        "sizes match imgproxy's reference table for every resizing type and flag",
        arguments: [
            ("fit", "", 50, 50, 50, 25), ("fit", "", 50, 20, 40, 20), ("fit", "", 300, 300, 200, 100), ("fit", "", 300, 50, 100, 50),
            ("fit", "", 100, 300, 100, 50), ("fit", "", 0, 50, 100, 50), ("fit", "", 50, 0, 50, 25), ("fit", "", 0, 200, 200, 100),
            ("fit", "", 300, 0, 200, 100),
            ("fit", "el", 50, 50, 50, 25), ("fit", "el", 300, 300, 300, 150), ("fit", "el", 0, 200, 400, 200), ("fit", "el", 300, 0, 300, 150),
            ("fit", "el", 300, 125, 250, 125), ("fit", "el", 250, 300, 250, 125),
            ("fit", "ex", 50, 50, 50, 50), ("fit", "ex", 50, 20, 50, 20), ("fit", "ex", 300, 300, 300, 300), ("fit", "ex", 0, 50, 100, 50),
            ("fit", "ex", 50, 0, 50, 25), ("fit", "ex", 0, 200, 200, 200), ("fit", "ex", 300, 0, 300, 100), ("fit", "ex", 300, 125, 300, 125),
            ("fit", "ex", 250, 300, 250, 300),
            ("fit", "exar", 50, 50, 50, 50), ("fit", "exar", 50, 20, 50, 20), ("fit", "exar", 300, 300, 200, 200), ("fit", "exar", 0, 50, 100, 50),
            ("fit", "exar", 50, 0, 50, 25), ("fit", "exar", 0, 200, 200, 100), ("fit", "exar", 300, 0, 200, 100), ("fit", "exar", 300, 125, 240, 100),
            ("fill", "", 50, 50, 50, 50), ("fill", "", 50, 20, 50, 20), ("fill", "", 300, 300, 200, 100), ("fill", "", 300, 50, 200, 50),
            ("fill", "", 100, 300, 100, 100), ("fill", "", 0, 50, 100, 50), ("fill", "", 50, 0, 50, 25), ("fill", "", 0, 200, 200, 100),
            ("fill", "", 300, 0, 200, 100),
            ("fill", "el", 50, 50, 50, 50), ("fill", "el", 300, 300, 300, 300), ("fill", "el", 0, 200, 400, 200), ("fill", "el", 300, 0, 300, 150),
            ("fill", "el", 300, 125, 300, 125), ("fill", "el", 250, 300, 250, 300),
            ("fill-down", "", 50, 50, 50, 50), ("fill-down", "", 50, 20, 50, 20), ("fill-down", "", 300, 300, 100, 100),
            ("fill-down", "", 0, 50, 100, 50), ("fill-down", "", 50, 0, 50, 25), ("fill-down", "", 0, 200, 200, 100),
            ("fill-down", "", 300, 0, 200, 100), ("fill-down", "", 300, 125, 200, 83), ("fill-down", "", 250, 300, 83, 100),
            ("force", "", 50, 50, 50, 50), ("force", "", 50, 0, 50, 100), ("auto", "", 100, 50, 100, 50), ("auto", "", 50, 100, 50, 25),
        ] as [(String, String, Int, Int, Int, Int)])
    func referenceTable(type: String, flags: String, width: Int, height: Int, resultWidth: Int, resultHeight: Int) throws {
        let resizingType = try #require(ProcessingOptions.ResizingType(rawValue: type))
        let plan = Self.plan(resizingType, width, height, enlarge: flags == "el", extend: flags == "ex", aspect: flags == "exar")
        #expect(plan.output == ImageSize(width: resultWidth, height: resultHeight))
    }

    @Test("dpr, zoom, min-width, crop and padding give imgproxy's sizes")
    func modifiers() {
        func size(_ change: (inout ProcessingOptions) -> Void) -> ImageSize { Self.plan(change).output }
        #expect(
            size {
                $0.width = 50
                $0.height = 50
                $0.dpr = 2
            } == ImageSize(width: 100, height: 50))
        #expect(
            size {
                $0.width = 150
                $0.dpr = 2
            } == ImageSize(width: 200, height: 100), "dpr never enlarges past the source")
        #expect(
            size {
                $0.zoomX = 0.5
                $0.zoomY = 0.5
            } == ImageSize(width: 100, height: 50))
        #expect(
            size {
                $0.zoomX = 2
                $0.zoomY = 2
            } == ImageSize(width: 200, height: 100))
        #expect(
            size {
                $0.zoomX = 2
                $0.zoomY = 2
                $0.enlarge = true
            } == ImageSize(width: 400, height: 200))
        #expect(size { $0.minWidth = 300 } == ImageSize(width: 300, height: 150), "min-width enlarges without el")
        #expect(size { $0.crop = .init(width: 100, height: 100, gravity: .init(type: .northWest)) } == ImageSize(width: 100, height: 100))
        #expect(size { $0.crop = .init(width: 0.5, height: 0.5) } == ImageSize(width: 100, height: 50))
        #expect(
            size {
                $0.width = 50
                $0.height = 50
                $0.padding = .init(top: 10, right: 10, bottom: 10, left: 10)
            } == ImageSize(width: 70, height: 45))
        #expect(
            size {
                $0.width = 50
                $0.height = 50
                $0.padding = .init(top: 10, right: 20, bottom: 10, left: 20)
            } == ImageSize(width: 90, height: 45))
        #expect(
            size {
                $0.width = 50
                $0.height = 50
                $0.dpr = 2
                $0.padding = .init(top: 10, right: 10, bottom: 10, left: 10)
            } == ImageSize(width: 140, height: 90))
        #expect(
            size {
                $0.width = 300
                $0.enlarge = true
            } == ImageSize(width: 300, height: 150))
    }

    @Test("gravity places a window at edges, corners, the centre or a focus point; offsets point inwards and are clamped")
    func gravity() {
        let outer = ImageSize(width: 600, height: 300), inner = ImageSize(width: 300, height: 300)
        func at(_ type: ProcessingOptions.GravityType, _ x: Double = 0, _ y: Double = 0, dpr: Double = 1) -> [Int] {
            let p = ResizePlan.position(of: inner, in: outer, gravity: .init(type: type, x: x, y: y), dprScale: dpr)
            return [p.x, p.y]
        }
        #expect(at(.west) == [0, 0])
        #expect(at(.east) == [300, 0])
        #expect(at(.center) == [150, 0])
        #expect(at(.southEast) == [300, 0])
        #expect(at(.focusPoint, 0.9, 0.5) == [300, 0])
        #expect(at(.focusPoint, 0.4, 0.5) == [90, 0])
        #expect(at(.west, 10) == [10, 0])
        #expect(at(.east, 10) == [290, 0], "an offset from the east edge points west")
        #expect(at(.center, -0.1) == [90, 0], "an offset under 1 is a fraction of the outer size")
        #expect(at(.west, 10, dpr: 2) == [20, 0])
        #expect(at(.west, -50) == [0, 0])
        let small = ResizePlan.position(
            of: ImageSize(width: 200, height: 100), in: ImageSize(width: 300, height: 300), gravity: .init(type: .south, x: 0, y: 10))
        #expect(small.x == 50 && small.y == 190)
    }

    @Test("numbers a URL may carry never trap: huge or tiny sizes, offsets, dpr and zoom saturate")
    func extremes() {
        for change in [
            { (o: inout ProcessingOptions) in
                o.gravity = .init(type: .northWest, x: -1e300, y: 1e300)
                o.width = 10
                o.height = 10
                o.resizingType = .fill
            },
            { (o: inout ProcessingOptions) in
                o.dpr = 1e300
                o.width = 1 << 40
                o.enlarge = true
            },
            { (o: inout ProcessingOptions) in
                o.zoomX = 1e-300
                o.zoomY = 1e300
                o.extend.enabled = true
                o.height = 5
            },
            { (o: inout ProcessingOptions) in
                o.crop = .init(width: 1e300, height: 1e-300)
                o.padding = .init(top: .max / 4, right: 0, bottom: 0, left: 0)
            },
            { (o: inout ProcessingOptions) in
                o.minWidth = .max
                o.minHeight = 1
                o.extendAspectRatio.enabled = true
                o.width = 1
                o.height = .max
            },
        ] {
            let plan = Self.plan(change)
            #expect(plan.output.width >= 1 && plan.output.height >= 1)
            _ = ResizePlan.position(of: plan.cropped, in: plan.scaled, gravity: .init(type: .east, x: -1e300, y: 0), dprScale: plan.dprScale)
        }
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
