import Foundation
import PipelineCore

/// HEIF and HEIC through libheif: the primary image with alpha, its transformations (rotation,
/// mirroring, cropping) applied, ICC, EXIF and XMP handed over; an embedded thumbnail is decoded
/// instead when it is large enough for the requested thumbnail. Depth maps and other auxiliary
/// images are ignored. Register once:
/// `ImageCodersManager.shared.add(HEIFCoder())` and, for sniffing the brands listed here,
/// `HEIFCoder.formats.forEach(ImageFormatRegistry.shared.register)`.
///
/// Decode only: libheif's HEVC encoder is x265 (GPL) in Debian's build, which library users must
/// not be made to ship by default; and HEIF with AV1 inside is AVIF, which `AVIFCoder` writes.
public struct HEIFCoder: ImageCoder {
    public init() {}

    /// Brands of HEVC-coded HEIF (images, sequences, multi-layer): decoded as `.heic`.
    static let heicBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
    /// Generic HEIF brands: decoded as `.heif` unless AVIF's brands are compatible (AVIFCoder's).
    static let heifBrands: Set<String> = ["mif1", "msf1"]
    static let avifBrands: Set<String> = ["avif", "avis"]

    /// The format table's HEIC and HEIF entries as this coder recognises them: HEIC adds the
    /// multi-layer and sequence brands to the built-in entry; HEIF leaves generic files listing
    /// AVIF's brands to AVIF.
    public static let formats: [ImageFormat] = [
        ImageFormat(
            identifier: ImageFormat.heic.identifier, names: ImageFormat.heic.names, mimeTypes: ["image/heic", "image/heic-sequence"],
            fileExtensions: ImageFormat.heic.fileExtensions,
            signature: ImageFormat.Signature { FileTypeBox($0.head).map { format(of: $0) == .heic } ?? false }),
        ImageFormat(
            identifier: ImageFormat.heif.identifier, names: ImageFormat.heif.names, mimeTypes: ["image/heif", "image/heif-sequence"],
            fileExtensions: ImageFormat.heif.fileExtensions,
            signature: ImageFormat.Signature { FileTypeBox($0.head).map { format(of: $0) == .heif } ?? false }),
    ]

    /// `.heic`, `.heif`, or nil when the box names neither (AVIF included).
    static func format(of box: FileTypeBox) -> ImageFormat? {
        if heicBrands.contains(box.majorBrand) { return .heic }
        guard heifBrands.contains(box.majorBrand), !box.compatibleBrands.contains(where: avifBrands.contains) else { return nil }
        return box.compatibleBrands.contains(where: heicBrands.contains) ? .heic : .heif
    }

    public func canDecode(_ data: Data) -> Bool {
        FileTypeBox(data).flatMap(Self.format) != nil
    }

    public func canDecode(format: ImageFormat) -> Bool { format == .heic || format == .heif }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard let format = FileTypeBox(data).flatMap(Self.format) else {
            throw ImagePipeError.undecodableBytes(data, coder: "HEIFCoder", format: .heic)
        }
        let checkpoint = DecodeCheckpoint(options: options)
        let file = try HEIFFile(data, options: options)
        let size = file.size
        try options.checkPixelLimit(size)
        let embedded = options.extras[.heifEmbeddedThumbnail] == true ? file.thumbnails.first : nil
        let target = options.targetSize(for: embedded?.size ?? size)
        let thumbnail = embedded?.id ?? (options.requestsThumbnail ? HEIFThumbnailChoice.pick(file.thumbnails, primary: size, target: target) : nil)
        let largest = Self.larger(try Self.footprint(data, item: thumbnail.map(Int.init), options: options), size)
        if thumbnail == nil { try options.checkDecoderMemory(Self.workingBytes(largest, alpha: file.hasAlpha)) }
        let metadata = HEIFMetadata(file.primary, options: options)
        try checkpoint.check()
        var pixels: PixelBuffer
        if let thumbnail {
            pixels = try file.withThumbnail(thumbnail) { try HEIFPixelDecoder.decode($0, alpha: file.hasAlpha) }
        } else {
            pixels = try HEIFPixelDecoder.decode(file.primary, alpha: file.hasAlpha)
            guard pixels.size == size else {
                throw ImagePipeError.badImageData(reason: "HEIF primary image decoded to \(pixels.size), its header says \(size)")
            }
        }
        try checkpoint.check()
        if pixels.size != target { pixels = pixels.resampled(to: target) }
        return Image(
            pixels, format: format, scale: options.scaleFactor,
            metadata: ImageMetadata(
                decodeOptions: options, warnings: metadata.warnings, colorProfile: metadata.colorProfile,
                exif: metadata.exif, xmp: metadata.xmp))
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImagePipeError.unsupportedFormat(format, reason: "HEIFCoder decodes only: HEIC encoding would need x265 (GPL); write AVIF instead")
    }

    /// The output at its decoded size plus libheif's buffers: the YUV planes (and alpha) of the
    /// primary image, the tiles it is assembled from, and the RGB image converted from them. An
    /// embedded thumbnail's decode is small beside that; the estimate does not count on one.
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        guard canDecode(data), let file = try? HEIFFile(data, options: options), (try? options.checkPixelLimit(file.size)) != nil else { return nil }
        let largest: ImageSize?
        do { largest = try Self.footprint(data, options: options) } catch { return nil }
        let working = Self.workingBytes(Self.larger(largest, file.size), alpha: file.hasAlpha)
        guard (try? options.checkDecoderMemory(working)) != nil else { return nil }
        return ImageDecodeEstimate(headerSize: file.size, options: options, bytesPerPixel: file.hasAlpha ? 4 : 3, workingBytes: working)
    }

    /// The largest image libheif allocates to decode `item` (else the primary image): every
    /// canvas and coded picture the decode reaches must be within `maxPixels`, and so must the
    /// pixels decoded in all (grid tiles, overlay inputs, alpha), which bounds the decode's CPU.
    /// Nil when the file has no item table to read, which libheif refuses too.
    static func footprint(_ data: Data, item: Int? = nil, options: ImageDecodeOptions) throws -> ImageSize? {
        switch HEIFDecodeFootprint.measure(data, item: item) {
        case .unknown: return nil
        case .unreadable(let reason): throw ImagePipeError.badImageData(reason: reason)
        case .footprint(let footprint):
            try options.checkPixelLimit(footprint.largest)
            if footprint.decodedPixels > options.maxPixels {
                throw ImagePipeError.limitExceeded(.pixels, value: footprint.decodedPixels, maximum: options.maxPixels)
            }
            return footprint.largest
        }
    }

    /// The larger (in pixels) of the largest image a decode allocates and the image's size.
    static func larger(_ canvas: ImageSize?, _ size: ImageSize) -> ImageSize {
        guard let canvas, (canvas.pixelCount ?? .max) > (size.pixelCount ?? .max) else { return size }
        return canvas
    }

    /// Up to 16-bit 4:4:4 planes twice (tiles and the assembled image) plus 8-bit RGB(A).
    static func workingBytes(_ size: ImageSize, alpha: Bool) -> Int {
        guard let pixels = size.pixelCount else { return .max }
        let planes = (alpha ? 4 : 3) * 2 * 2
        let (total, overflow) = pixels.multipliedReportingOverflow(by: planes + (alpha ? 4 : 3))
        return overflow ? .max : total
    }
}
