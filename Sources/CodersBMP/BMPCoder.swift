import Foundation
import PipelineCore

/// BMP, ICO and CUR, decoded in Swift with every offset and size checked. Register once:
/// `ImageCodersManager.shared.add(BMPCoder())`.
///
/// BMP: 1, 2, 4, 8, 16, 24 and 32 bits a pixel, RLE4 and RLE8, bit masks (BITFIELDS and
/// ALPHABITFIELDS), rows top-down or bottom-up, alpha where the header has an alpha mask, and an
/// embedded ICC profile (V5). BMPs holding JPEG or PNG data are refused as unsupported.
///
/// ICO and CUR: every entry is a frame, largest first, so a still image (and the first frame) is the
/// largest entry. DIB entries are decoded here, with their AND mask; PNG entries by the PNG coder
/// registered with `coders` (refused as unsupported when none is). Decode only.
public struct BMPCoder: AnimatedImageCoder {
    private let entryDecoder: ICOEntryDecoder

    /// `coders` decodes icons' PNG entries.
    public init(coders: ImageCodersManager = .shared) {
        entryDecoder = ICOEntryDecoder(coders: coders)
    }

    static func isBMP(_ data: Data) -> Bool {
        let bytes = LittleEndianBytes(data: data)
        guard bytes.u8(0) == 0x42, bytes.u8(1) == 0x4D, let headerSize = bytes.u32(14) else { return false }
        return headerSize == 12 || headerSize == 16 || (40...1024).contains(headerSize)
    }

    public func canDecode(_ data: Data) -> Bool { Self.isBMP(data) || ICODirectory.isICO(data) }

    public func canDecode(format: ImageFormat) -> Bool { format == .bmp || format == .ico }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        let checkpoint = DecodeCheckpoint(options: options)
        if ICODirectory.isICO(data) { return try decodeIcon(data, options: options, checkpoint: checkpoint) }
        guard Self.isBMP(data) else { throw ImagePipeError.undecodableBytes(data, coder: "BMPCoder", format: .bmp) }
        let bytes = LittleEndianBytes(data: data)
        let header = try BMPHeader(bytes, dibOffset: 14, pixelOffset: bytes.u32(10).map(Int.init), isIconEntry: false, options: options)
        try options.checkDecoderMemory(Self.workingBytes(header.size))
        var (pixels, warnings) = try BMPPixelDecoder.decode(header, bytes: bytes, iconMask: false, checkpoint: checkpoint)
        try checkpoint.check()
        let target = options.targetSize(for: pixels.size)
        if pixels.size != target { pixels = pixels.resampled(to: target) }
        let (profile, profileWarning) = options.acceptingColorProfile(header.iccProfile.map(ImageColorProfile.icc), format: "BMP")
        if let profileWarning { warnings.append(profileWarning) }
        return Image(pixels, format: .bmp, scale: options.scaleFactor, metadata: ImageMetadata(decodeOptions: options, warnings: warnings, colorProfile: profile))
    }

    private func decodeIcon(_ data: Data, options: ImageDecodeOptions, checkpoint: DecodeCheckpoint) throws -> Image {
        if let animation = try decodeAnimation(data, options: options) { return animation }
        let directory = try ICODirectory(data, options: options)
        let largest = directory.entries[0]
        try options.checkDecoderMemory(Self.workingBytes(largest.size))
        var (pixels, warnings) = try entryDecoder.decode(largest, in: data, options: options, checkpoint: checkpoint)
        if let skipped = ICOAnimationProvider.skippedWarning(directory) { warnings.append(skipped) }
        let target = options.targetSize(for: pixels.size)
        if pixels.size != target { pixels = pixels.resampled(to: target) }
        return Image(pixels, format: .ico, scale: options.scaleFactor, metadata: ImageMetadata(decodeOptions: options, warnings: warnings))
    }

    public func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)? {
        guard ICODirectory.isICO(data) else { return nil }
        let directory = try ICODirectory(data, options: options)
        guard directory.entries.count > 1 else { return nil }
        return try ICOAnimationProvider(data, directory: directory, decoder: entryDecoder, options: options)
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImagePipeError.unsupportedFormat(format, reason: "BMPCoder decodes only")
    }

    /// RGBA rows while decoding, and the narrower copy made from them.
    static func workingBytes(_ size: ImageSize) -> Int {
        guard let pixels = size.pixelCount else { return .max }
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: 7)
        return overflow ? .max : bytes
    }

    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        guard Self.isBMP(data) else { return nil }
        let bytes = LittleEndianBytes(data: data)
        guard let header = try? BMPHeader(bytes, dibOffset: 14, pixelOffset: bytes.u32(10).map(Int.init), isIconEntry: false, options: options)
        else { return nil }
        let working = Self.workingBytes(header.size)
        guard (try? options.checkDecoderMemory(working)) != nil else { return nil }
        return ImageDecodeEstimate(headerSize: header.size, options: options, bytesPerPixel: 4, workingBytes: working)
    }
}
