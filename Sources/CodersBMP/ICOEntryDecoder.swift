import Foundation
import PipelineCore

/// Decodes one icon entry: a DIB here, a PNG through the coders the `BMPCoder` was given.
struct ICOEntryDecoder: Sendable {
    let coders: ImageCodersManager

    func decode(_ entry: ICODirectory.Entry, in data: Data, options: ImageDecodeOptions, checkpoint: DecodeCheckpoint) throws -> (PixelBuffer, [ImageDecodeWarning]) {
        let start = data.startIndex + entry.range.lowerBound
        let bytes = Data(data[start..<start + entry.range.count])
        try options.checkPixelLimit(entry.size)
        if entry.isPNG {
            guard let coder = coders.coder(for: bytes), coder.canDecode(format: .png) else {
                throw ImagePipeError.unsupportedFormat(
                    .png, reason: "ICO entry \(entry.index) is a PNG, and no coder registered with the BMPCoder's coders manager decodes PNG")
            }
            var pngOptions = options
            pngOptions.thumbnailPixelSize = nil
            pngOptions.scaleDownLimitBytes = nil
            pngOptions.firstFrameOnly = true
            let image = try coder.decode(bytes, options: pngOptions)
            return (image.firstFrame, image.metadata.warnings)
        }
        let dib = LittleEndianBytes(data: bytes)
        let header = try BMPHeader(dib, dibOffset: 0, pixelOffset: nil, isIconEntry: true, options: options)
        return try BMPPixelDecoder.decode(header, bytes: dib, iconMask: true, checkpoint: checkpoint)
    }
}
