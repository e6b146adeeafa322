import Foundation
import PipelineCore
import Synchronization
import TestSupport
import Testing

@testable import CodersAVIF

/// Large stills encode as a grid of cells that every reader assembles, and an encode stops
/// between cells when its work is cancelled.
@Suite(.dedicatedThreads)
struct AVIFGridEncoderTests {
    /// A photo-like image: smooth gradients and waves with a little texture, RGB or RGBA.
    static func photo(width: Int, height: Int, alpha: Bool = false) -> PixelBuffer {
        let channels = alpha ? 4 : 3
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * channels
                let wave = sin(Double(x) / 37) * cos(Double(y) / 53)
                bytes[index] = UInt8(clamping: Int(128 + 100 * wave) + (x * 7 + y * 3) % 9)
                bytes[index + 1] = UInt8(clamping: x * 255 / width)
                bytes[index + 2] = UInt8(clamping: y * 255 / height)
                // Transparent only in the top-left corner: the other cells are opaque.
                if alpha { bytes[index + 3] = x < width / 4 && y < height / 4 ? UInt8(x * 255 / (width / 4)) : 255 }
            }
        }
        return PixelBuffer(unchecked: width, height: height, format: alpha ? .rgba8 : .rgb8, bytes: bytes)
    }

    static func options(cellSide: Int = 256, quality: Double = 0.9) -> ImageEncodeOptions {
        var options = ImageEncodeOptions(quality: quality)
        options.extras[.avifSpeed] = 10
        options.extras[.avifGridCellSize] = cellSide
        options.extras[.avifGridMinimumPixels] = 0
        return options
    }

    /// Peak signal-to-noise ratio of `a` against `b`, in dB, over every channel.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let squares = zip(a, b).reduce(0.0) { sum, pair in
            let difference = Double(pair.0) - Double(pair.1)
            return sum + difference * difference
        }
        return 10 * log10(255 * 255 / max(squares / Double(a.count), 1e-9))
    }

    /// The primary item's type and, for a grid, its rows and columns.
    static func primary(of data: Data) throws -> (type: String, columns: Int, rows: Int) {
        let bytes = [UInt8](data)
        let meta = try #require(AVIFBox.children(of: bytes, in: 0..<bytes.count).first { $0.type == "meta" })
        let table = AVIFMetaBox(bytes, meta)
        let primary = try #require(table.primary.flatMap { table.item($0) })
        guard primary.type == "grid" else { return (primary.type, 1, 1) }
        let extent = try #require(table.locations?.first { $0.id == primary.id }?.extents.first)
        return (primary.type, Int(bytes[extent.offset + 3]) + 1, Int(bytes[extent.offset + 2]) + 1)
    }

    @Test("a large image is written as a grid that decodes to its size and pixels", arguments: [(1000, 700), (999, 701)])
    func gridRoundTrip(width: Int, height: Int) throws {
        let source = Self.photo(width: width, height: height)
        let data = try AVIFCoder().encode(Image(source), as: .avif, options: Self.options())
        // 1000 in 256-pixel cells: four cells of 250.
        #expect(try Self.primary(of: data) == ("grid", 4, 3))
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.pixelSize == source.size && image.pixelFormat == .rgb8)
        #expect(Self.psnr(image.firstFrame.bytes, source.bytes) > 35)
        // The same image in one piece, for comparison: the grid costs little at the same chroma
        // subsampling (an odd size is a 4:4:4 grid, which costs more than one 4:2:0 image).
        var single = Self.options()
        single.extras[.avifGridCellSize] = 0
        let whole = try AVIFCoder().encode(Image(source), as: .avif, options: single)
        #expect(try Self.primary(of: whole).type == "av01")
        if width.isMultiple(of: 2) && height.isMultiple(of: 2) { #expect(Double(data.count) < Double(whole.count) * 1.25) }
    }

    @Test("alpha is written as an alpha grid, opaque cells included")
    func alphaGrid() throws {
        let source = Self.photo(width: 800, height: 600, alpha: true)
        let data = try AVIFCoder().encode(Image(source), as: .avif, options: Self.options())
        #expect(try Self.primary(of: data).type == "grid")
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.pixelSize == source.size && image.pixelFormat == .rgba8)
        let alpha = { (bytes: [UInt8]) in stride(from: 3, to: bytes.count, by: 4).map { bytes[$0] } }
        #expect(maxChannelDifference(alpha(image.firstFrame.bytes), alpha(source.bytes)) <= 24)
        #expect(image.firstFrame.color(x: 799, y: 599).alpha == 255)
        #expect(Self.psnr(image.firstFrame.bytes, source.bytes) > 33)
    }

    @Test("the ICC profile, EXIF and XMP are the grid's")
    func metadata() throws {
        let metadata = ImageMetadata(
            colorProfile: .icc(ColorFixtures.displayP3Profile()), exif: Data(MetadataFixtures.exif(orientation: 1)), xmp: Data(MetadataFixtures.xmp()))
        let data = try AVIFCoder().encode(Image(Self.photo(width: 600, height: 300), metadata: metadata), as: .avif, options: Self.options())
        #expect(try Self.primary(of: data).type == "grid")
        let image = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        #expect(image.metadata.colorProfile == metadata.colorProfile)
        #expect(image.metadata.exif == metadata.exif && image.metadata.xmp == metadata.xmp)
    }

    @Test("images at or below the threshold are written as before, byte for byte")
    func smallImagesUnchanged() throws {
        let source = Self.photo(width: 300, height: 200)
        var options = ImageEncodeOptions(quality: 0.8)
        options.extras[.avifSpeed] = 10
        let byDefault = try AVIFCoder().encode(Image(source), as: .avif, options: options)
        options.extras[.avifGridCellSize] = 0
        #expect(try AVIFCoder().encode(Image(source), as: .avif, options: options) == byDefault)
        #expect(try Self.primary(of: byDefault).type == "av01")
    }

    @Test("the encoder's memory figure drops where images are encoded as grids")
    func memoryFigure() {
        let whole = AVIFCoder.defaultGridMinimumPixels
        #expect(AVIFCoder().encoderWorkingBytes(pixels: whole, format: .avif) == whole * 17)
        #expect(AVIFCoder().encoderWorkingBytes(pixels: whole + 1, format: .avif) == (whole + 1) * 4)
    }

    @Test("layouts share the image evenly in cells MIAF allows", arguments: [1, 64, 511, 512, 513, 1000, 4097, 5000, 65_535, 200_000])
    func layouts(width: Int) throws {
        for height in [1, 130, 4000] {
            let size = ImageSize(width: width, height: height)
            guard let layout = AVIFGridLayout.layout(for: size, cellSide: 512, minimumPixels: 0) else {
                #expect(width <= 512 && height <= 512)
                continue
            }
            #expect(layout.cell.width >= 64 && layout.cell.height >= 64)
            #expect(layout.cell.width.isMultiple(of: 2) && layout.cell.height.isMultiple(of: 2))
            #expect(layout.cell.width * layout.columns >= width && layout.cell.width * (layout.columns - 1) < width)
            #expect(layout.cell.height * layout.rows >= height && layout.cell.height * (layout.rows - 1) < height)
            #expect(layout.columns <= 256 && layout.rows <= 256 && layout.cellCount <= AVIFGridLayout.maxCells)
        }
        #expect(AVIFGridLayout.layout(for: ImageSize(width: 2048, height: 2048), cellSide: 512, minimumPixels: 2048 * 2048) == nil)
        #expect(AVIFGridLayout.layout(for: ImageSize(width: 2048, height: 2048), cellSide: 0, minimumPixels: 0) == nil)
    }

    @Test("avifdec and vips (libheif) read the grid as we do", arguments: ["avifdec", "vips"])
    func otherReaders(tool: String) throws {
        guard ToolFixtures.tool(tool) != nil else { return }
        let source = Self.photo(width: 999, height: 701, alpha: true)
        let data = try AVIFCoder().encode(Image(source), as: .avif, options: Self.options())
        let url = ToolFixtures.url("grid-\(UUID().uuidString).avif")
        try data.write(to: url)
        let ours = try AVIFCoder().decode(data, options: ImageDecodeOptions())
        let reference: ReferencePNG.Pixels
        if tool == "vips" {
            let output = ToolFixtures.url("grid-\(UUID().uuidString).png")
            defer { try? FileManager.default.removeItem(at: output) }
            try TestProcesses.run("/usr/bin/vips", ["copy", url.path, output.path])
            reference = try #require(ReferencePNG.read(output))
        } else {
            reference = try ToolFixtures.reference(tool: "avifdec", ["-d", "8"], input: url)
        }
        #expect(reference.width == 999 && reference.height == 701)
        #expect(maxChannelDifference(ours.firstFrame.bytes, reference.rgba) <= 2)
    }

    @Test("a cancelled encode stops before its next cell with `cancelled`")
    func cancelled() throws {
        let source = Self.photo(width: 2048, height: 1536)
        let flag = DecodeCancellation()
        flag.cancel()
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(flag) { try AVIFCoder().encode(Image(source), as: .avif, options: Self.options(cellSide: 512)) }
        }
    }

    @Test("work that can be cancelled is encoded by a child process, byte for byte as in the process, grid or not")
    func childProcessSameBytes() throws {
        let source = Image(Self.photo(width: 700, height: 300))
        var single = ImageEncodeOptions(quality: 0.8)
        single.extras[.avifSpeed] = 10
        // 210,000 pixels in one image, and two 350 x 300 cells: each over the child's minimum.
        for options in [single, Self.options(cellSide: 350)] {
            let inProcess = try AVIFCoder().encode(source, as: .avif, options: options)
            let inChild = try DecodeCancellation.$current.withValue(DecodeCancellation()) {
                #expect(AVIFChildProcessEncode.isUsed(pixels: 350 * 300))
                return try AVIFCoder().encode(source, as: .avif, options: options)
            }
            #expect(inChild == inProcess)
        }
        #expect(!AVIFChildProcessEncode.isUsed(pixels: 350 * 300))
    }

    @Test("a flag set from another thread mid-encode stops it within about one cell", .timeLimit(.minutes(2)))
    func cancelledMidway() throws {
        // 24 MP: about a hundred cells, so the flag lands mid-encode even on a quiet machine.
        let source = Self.photo(width: 6000, height: 4000)
        var options = ImageEncodeOptions(quality: 0.8)
        options.extras[.avifSpeed] = AVIFCoder.defaultSpeed
        let flag = DecodeCancellation()
        let cancelledAt = Moment()
        let thread = Thread {
            Thread.sleep(forTimeInterval: 0.2)
            cancelledAt.instant.withLock { $0 = .now }
            flag.cancel()
        }
        thread.start()
        let started = ContinuousClock.now
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(flag) { try AVIFCoder().encode(Image(source), as: .avif, options: options) }
        }
        let stopped = ContinuousClock.now
        let cancelled = try #require(cancelledAt.instant.withLock { $0 })
        // A 512-pixel cell takes about 0.2 s at speed 5; the bound leaves room for a loaded machine.
        let late = stopped - cancelled
        #expect(late < .seconds(2), "stopped \(late) after the flag was set, \(stopped - started) after the start")
    }
}

/// When something happened, written by one thread and read by another.
private final class Moment: Sendable {
    let instant = Mutex<ContinuousClock.Instant?>(nil)
}
