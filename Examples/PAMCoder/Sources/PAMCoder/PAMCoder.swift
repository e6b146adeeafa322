import Foundation
import PipelineCore

/// Decodes and encodes binary Netpbm images: P5 (PGM), P6 (PPM) and P7 (PAM, gray, gray+alpha, RGB,
/// RGBA), 8-bit samples. Pixel formats are kept as the file has them (a P5 decodes to `gray8`).
///
/// Register once at start-up: `ImageCodersManager.shared.add(PAMCoder())`, and the format with
/// `ImageFormatRegistry.shared.register(.pnm)` so sniffing, look-ups by name and `Accept` know it.
public struct PAMCoder: ImageCoder {
    public init() {}

    /// Magic bytes only (the format's signature): never parses further, because the manager asks
    /// every coder about every download.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.Signature.pnm.matches(ImageFormat.SniffedBytes(data))
    }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        let bytes = [UInt8](data)
        let header = try PNMHeader.parse(bytes)
        let size = ImageSize(width: header.width, height: header.height)
        // Before allocating: a hostile header may claim any size.
        try options.checkPixelLimit(size)
        let length = try PixelBuffer.byteCount(width: header.width, height: header.height, format: header.pixelFormat)
        guard bytes.count - header.dataOffset >= length else {
            throw PNMHeader.bad("the pixel data has \(max(0, bytes.count - header.dataOffset)) bytes, the header needs \(length)")
        }
        var samples = Array(bytes[header.dataOffset..<(header.dataOffset + length)])
        if header.maxValue != 255 {
            let maximum = header.maxValue
            for index in samples.indices {
                // Values above maxval are corrupt; clamp rather than wrap, so damage stays local.
                samples[index] = UInt8((min(Int(samples[index]), maximum) * 255 + maximum / 2) / maximum)
            }
        }
        var buffer = try PixelBuffer(width: header.width, height: header.height, format: header.pixelFormat, bytes: samples)
        let target = options.targetSize(for: size)
        // Netpbm has no reduced-size decoding, so a thumbnail is the full image resampled down.
        if target != size { buffer = buffer.resampled(to: target) }
        return Image(buffer, format: .pnm, scale: max(options.scaleFactor, 1))
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .pnm }

    /// Lossless, so `quality` is ignored. `maxPixelSize` is honoured; alpha is always kept (P7).
    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "PAMCoder", format: .pnm) }
        var buffer = image.firstFrame
        if let box = options.maxPixelSize, !box.isEmpty {
            let target = buffer.size.fitted(into: box)
            if target != buffer.size { buffer = buffer.resampled(to: target) }
        }
        let asPAM = buffer.format.hasAlpha || options.extras[.pnmAlwaysWritePAM] == true
        let header: String
        switch (asPAM, buffer.format) {
        case (false, .gray8): header = "P5\n\(buffer.width) \(buffer.height)\n255\n"
        case (false, _): header = "P6\n\(buffer.width) \(buffer.height)\n255\n"
        case (true, _):
            let type = ["GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"][buffer.format.channelCount - 1]
            header = "P7\nWIDTH \(buffer.width)\nHEIGHT \(buffer.height)\nDEPTH \(buffer.format.channelCount)\nMAXVAL 255\nTUPLTYPE \(type)\nENDHDR\n"
        }
        if !asPAM && buffer.format != .gray8 { buffer = buffer.converted(to: .rgb8) }
        return Data(header.utf8) + Data(buffer.bytes)
    }
}
