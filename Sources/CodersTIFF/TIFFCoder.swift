import Foundation
import PipelineCore

/// TIFF through libtiff, read from memory (decode only). Register once:
/// `ImageCodersManager.shared.add(TIFFCoder())`.
///
/// Strips and tiles; 1-16 bits a sample; gray, palette, RGB and CMYK (through the registered
/// colour converter's CMYK path when the file has a profile and colour is converted, else naively);
/// associated and unassociated alpha; interleaved or separate planes; every compression libtiff
/// is built with (none, LZW, Deflate, JPEG, PackBits, CCITT fax, …). Other layouts libtiff's RGBA
/// helper reads (subsampled YCbCr, CIE L*a*b*, LogLuv) go through it. The orientation tag goes on
/// the image; the ICC profile and XMP packet are handed over.
///
/// A multi-page file is an animation of its pages (reduced-resolution copies left out), shown a
/// second each, so a still image, and the first frame, is the first page. A thumbnail is shrunk
/// strip by strip or tile row by tile row while decoding, so a huge scan is never held whole.
public struct TIFFCoder: AnimatedImageCoder {
    private let reader: TIFFPageReader

    /// `colorConverters` converts CMYK pages with their profile.
    public init(colorConverters: ImageColorConvertersManager = .shared) {
        reader = TIFFPageReader(colorConverters: colorConverters)
    }

    /// Classic TIFF (`II*\0`, `MM\0*`) and BigTIFF (`II+\0`, `MM\0+`).
    static func isTIFF(_ data: Data) -> Bool {
        guard data.count >= 8 else { return false }
        let head = Array(data.prefix(4))
        return head == [0x49, 0x49, 0x2A, 0] || head == [0x4D, 0x4D, 0, 0x2A] || head == [0x49, 0x49, 0x2B, 0] || head == [0x4D, 0x4D, 0, 0x2B]
    }

    public func canDecode(_ data: Data) -> Bool { Self.isTIFF(data) }

    public func canDecode(format: ImageFormat) -> Bool { format == .tiff }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard Self.isTIFF(data) else { throw ImagePipeError.undecodableBytes(data, coder: "TIFFCoder", format: .tiff) }
        if let animation = try decodeAnimation(data, options: options) { return animation }
        let checkpoint = DecodeCheckpoint(options: options)
        let page = try TIFFFile.withTIFF(data, options: options) { file in
            try reader.read(file, directory: 0, options: options, checkpoint: checkpoint)
        }
        return Image(
            page.pixels, format: .tiff, orientation: page.orientation, scale: options.scaleFactor,
            metadata: ImageMetadata(
                decodeOptions: options, warnings: page.warnings, colorProfile: page.colorProfile, xmp: page.xmp, colorModel: page.colorModel))
    }

    public func animatedImageProvider(for data: Data, options: ImageDecodeOptions) throws -> (any AnimatedImageProvider)? {
        guard Self.isTIFF(data) else { return nil }
        return try TIFFAnimationProvider(data, reader: reader, options: options)
    }

    /// The first page's pixels at the size asked for, and the band of strips or tiles read at once.
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        guard Self.isTIFF(data),
            let layout = try? TIFFFile.withTIFF(data, options: options, { try TIFFPageLayout($0) }),
            (try? options.checkPixelLimit(layout.size)) != nil
        else { return nil }
        let working = TIFFPageDecoder.bandBytes(layout)
        guard (try? options.checkDecoderMemory(working)) != nil else { return nil }
        return ImageDecodeEstimate(headerSize: layout.size, options: options, bytesPerPixel: layout.outputFormat.bytesPerPixel, workingBytes: working)
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImagePipeError.unsupportedFormat(format, reason: "TIFFCoder decodes only")
    }
}
