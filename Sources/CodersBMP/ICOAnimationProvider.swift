import Foundation
import PipelineCore

/// An icon's entries as frames, largest first, each fitted (aspect kept, centred) into the
/// canvas of the largest. Entries have no timing; each is shown for `entryDuration`.
final class ICOAnimationProvider: AnimatedImageProvider {
    /// Seconds each entry is shown when the icon is played or written as an animation.
    static let entryDuration = 1.0

    let data: Data
    let format = ImageFormat.ico
    let canvasSize: ImageSize
    let pixelFormat = PixelFormat.rgba8
    let frameCount: Int
    let loopCount = 0
    let warnings: [ImageDecodeWarning]
    private let directory: ICODirectory
    private let decoder: ICOEntryDecoder
    private let options: ImageDecodeOptions

    init(_ data: Data, directory: ICODirectory, decoder: ICOEntryDecoder, options: ImageDecodeOptions) throws {
        self.data = data
        self.directory = directory
        self.decoder = decoder
        self.options = options
        let largest = directory.entries[0].size
        // Every frame is as large as the largest entry: the budget counts them at that size.
        try options.checkPixelLimit(largest)
        try options.checkAnimationPixels(frameCount: directory.entries.count, canvas: largest)
        canvasSize = options.targetSize(for: largest, frameCount: directory.entries.count)
        frameCount = directory.entries.count
        warnings = ICOAnimationProvider.skippedWarning(directory).map { [$0] } ?? []
    }

    static func skippedWarning(_ directory: ICODirectory) -> ImageDecodeWarning? {
        guard directory.skipped > 0 else { return nil }
        return ImageDecodeWarning(.corruptData, message: "ICO: \(directory.skipped) entries outside the file or without a header were left out")
    }

    func duration(at index: Int) -> Double { Self.entryDuration }

    func frame(at index: Int) throws -> PixelBuffer {
        let checkpoint = try startFrameDecode(index, options: options)
        let (pixels, _) = try decoder.decode(directory.entries[index], in: data, options: options, checkpoint: checkpoint)
        return pixels.letterboxed(into: canvasSize, format: pixelFormat)
    }
}
