import Foundation
import PipelineCore

/// A multi-page TIFF's pages as frames (reduced-resolution copies left out), each fitted, aspect
/// kept and centred, into the canvas of the first. Pages have no timing; each is shown for
/// `pageDuration`.
final class TIFFAnimationProvider: AnimatedImageProvider {
    /// Seconds each page is shown when the file is played or written as an animation.
    static let pageDuration = 1.0

    struct PageInfo {
        let directory: Int
        let size: ImageSize
        let format: PixelFormat
    }

    let data: Data
    let format = ImageFormat.tiff
    let canvasSize: ImageSize
    let pixelFormat: PixelFormat
    let frameCount: Int
    let loopCount = 0
    private let pages: [PageInfo]
    private let reader: TIFFPageReader
    private let options: ImageDecodeOptions

    /// nil when the file has one page.
    init?(_ data: Data, reader: TIFFPageReader, options: ImageDecodeOptions) throws {
        let pages = try TIFFFile.withTIFF(data, options: options) { file in
            let count = try file.directoryCount(limit: options.maxFrames)
            var pages: [PageInfo] = []
            for directory in 0..<count {
                if directory > 0 { try file.select(directory: directory) }
                let layout = try TIFFPageLayout(file)
                if layout.isReducedImage && directory > 0 { continue }
                pages.append(PageInfo(directory: directory, size: layout.size, format: layout.outputFormat))
                try options.checkFrameLimit(pages.count)
            }
            return pages
        }
        guard pages.count > 1 else { return nil }
        for page in pages { try options.checkPixelLimit(page.size) }
        let full = pages[0].size
        try options.checkAnimationPixels(frameCount: pages.count, canvas: full)
        self.data = data
        self.pages = pages
        self.reader = reader
        self.options = options
        frameCount = pages.count
        canvasSize = options.targetSize(for: full, frameCount: pages.count)
        if pages.allSatisfy({ $0.size == full && $0.format == pages[0].format }) {
            pixelFormat = pages[0].format
        } else if pages.allSatisfy({ $0.size == full }) {
            let alpha = pages.contains { $0.format.hasAlpha }, color = pages.contains { !$0.format.isGray }
            pixelFormat = color ? (alpha ? .rgba8 : .rgb8) : (alpha ? .grayAlpha8 : .gray8)
        } else {
            // Pages of other sizes are letterboxed on transparent pixels.
            pixelFormat = .rgba8
        }
    }

    func duration(at index: Int) -> Double { Self.pageDuration }

    func frame(at index: Int) throws -> PixelBuffer {
        let checkpoint = try startFrameDecode(index, options: options)
        let page = pages[index]
        let target = ImageSizeMath.scaledSize(page.size, toFit: canvasSize, preserveAspectRatio: true, allowUpscaling: false)
        let pixels = try TIFFFile.withTIFF(data, options: options) { file in
            try reader.read(file, directory: page.directory, target: target, options: options, checkpoint: checkpoint).pixels
        }
        return pixels.letterboxed(into: canvasSize, format: pixelFormat)
    }
}
