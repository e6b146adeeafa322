import CodersBMP
import CodersPNG
import Foundation
import PipelineCore
import TestSupport
import Testing

/// Icons: every entry a frame, largest first; DIB entries with their AND mask, PNG entries
/// through the PNG coder of the coders manager given.
@Suite("ICO and CUR", .dedicatedThreads)
struct ICOTests {
    /// The shared manager's coders are the application's: these tests bring their own.
    static let coders: ImageCodersManager = {
        let manager = ImageCodersManager()
        manager.add(PNGCoder())
        return manager
    }()

    static func reference(_ name: String) throws -> [PixelBuffer] {
        try #require(ReferencePAM.read(Corpus.root.appendingPathComponent("bmp/reference/\(name).pam")))
    }

    @Test("the still image is the largest entry, a PNG here, as winicontopam reads it")
    func stillIsLargestPNG() throws {
        let data = try Corpus.data("bmp", "icons-dib-png.ico")
        let coder = BMPCoder(coders: Self.coders)
        #expect(coder.canDecode(data))
        let still = try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
        let entries = try Self.reference("icons-dib-png")
        #expect(entries.map(\.size.width) == [16, 32, 48, 64])
        #expect(still.format == .ico)
        #expect(still.pixelSize == ImageSize(width: 64, height: 64))
        #expect(ReferencePAM.maxDifference(still.firstFrame, entries[3]) == 0)
    }

    @Test("the largest DIB entry, with its alpha, as winicontopam reads it")
    func stillIsLargestDIB() throws {
        let still = try BMPCoder(coders: Self.coders).decode(try Corpus.data("bmp", "icons-dib.ico"), options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(still.pixelSize == ImageSize(width: 48, height: 48))
        #expect(still.pixelFormat == .rgba8)
        #expect(ReferencePAM.maxDifference(still.firstFrame, try Self.reference("icons-dib")[1]) == 0)
    }

    @Test("every entry is a frame, largest first, each fitted into the largest's canvas")
    func frames() throws {
        let data = try Corpus.data("bmp", "icons-dib-png.ico")
        let image = try BMPCoder(coders: Self.coders).decode(data, options: ImageDecodeOptions())
        #expect(image.frameCount == 4)
        #expect(image.pixelSize == ImageSize(width: 64, height: 64))
        let entries = try Self.reference("icons-dib-png")
        #expect(ReferencePAM.maxDifference(try image.frame(at: 0), entries[3]) == 0)
        // The smaller entries, enlarged to the canvas.
        for index in 1..<4 {
            let frame = try image.frame(at: index)
            #expect(frame.size == ImageSize(width: 64, height: 64) && frame.format == .rgba8)
        }
        #expect(try image.frame(at: 3) == entries[0].resampled(to: ImageSize(width: 64, height: 64)))
        #expect(image.duration(at: 3) == 1)
    }

    @Test("a PNG entry without a PNG coder is refused, saying so; DIB-only icons need none")
    func withoutPNGCoder() throws {
        let coder = BMPCoder(coders: ImageCodersManager())
        #expect {
            try coder.decode(try Corpus.data("bmp", "icons-dib-png.ico"), options: ImageDecodeOptions(firstFrameOnly: true))
        } throws: { error in
            guard case .unsupportedFormat(let format, let reason) = error as? ImagePipeError else { return false }
            return format == .png && reason.contains("PNG")
        }
        #expect(try coder.decode(try Corpus.data("bmp", "icons-dib.ico"), options: ImageDecodeOptions(firstFrameOnly: true)).pixelSize.width == 48)
    }

    @Test("a cursor (type 2) decodes like an icon")
    func cursor() throws {
        var bytes = [UInt8](try Corpus.data("bmp", "icons-dib.ico"))
        bytes[2] = 2
        let image = try BMPCoder(coders: Self.coders).decode(Data(bytes), options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(image.pixelSize == ImageSize(width: 48, height: 48))
        #expect(ImageFormat.detect(in: Data(bytes)) == .ico)
    }

    @Test("entries outside the file are left out with a warning")
    func entryOutsideFile() throws {
        var bytes = [UInt8](try Corpus.data("bmp", "icons-dib.ico"))
        // The second directory entry's offset far past the end.
        bytes.replaceSubrange(6 + 16 + 12..<6 + 16 + 16, with: [0, 0, 0, 0x10])
        let image = try BMPCoder(coders: Self.coders).decode(Data(bytes), options: ImageDecodeOptions())
        #expect(image.frameCount == 1)
        #expect(image.pixelSize == ImageSize(width: 16, height: 16))
        #expect(image.metadata.warnings.contains { $0.kind == .corruptData })
    }
}
