import Foundation
import PipelineCore

/// One page of a TIFF decoded into an image's pixels and metadata: the part of a decode shared by
/// the still image and the animation provider's frames.
struct TIFFPageReader: Sendable {
    let colorConverters: ImageColorConvertersManager

    struct Page {
        var pixels: PixelBuffer
        var orientation: ImageOrientation
        var colorProfile: ImageColorProfile?
        var xmp: Data?
        var colorModel: String?
        var warnings: [ImageDecodeWarning]
    }

    /// Directory `directory` of the open `file` at `target` (nil: the size `options` ask for).
    func read(_ file: TIFFFile, directory: Int, target: ImageSize? = nil, options: ImageDecodeOptions, checkpoint: DecodeCheckpoint) throws -> Page {
        if directory > 0 { try file.select(directory: directory) }
        let layout = try TIFFPageLayout(file)
        try options.checkPixelLimit(layout.size)
        let target = target ?? options.targetSize(for: layout.size)
        try options.checkDecoderMemory(TIFFPageDecoder.bandBytes(layout))
        var warnings: [ImageDecodeWarning] = []
        var (profile, profileWarning) = options.acceptingColorProfile(layout.iccProfile.map(ImageColorProfile.icc), format: "TIFF")
        if let profileWarning { warnings.append(profileWarning) }
        var cmyk: (any CMYKRowConverter)?
        if layout.isNative, layout.model == .cmyk {
            do {
                cmyk = try colorConverters.cmykConverter(for: options.colorHandling, profile: profile, inverted: false)
            } catch {
                profile = nil
                warnings.append(ImageDecodeWarning(.colorProfileIgnored, message: "TIFF: CMYK colour profile not applied, CMYK converted without it: \(error)"))
            }
        }
        try checkpoint.check()
        let pixels = try TIFFPageDecoder.decode(file, layout: layout, target: target, cmyk: cmyk, options: options, checkpoint: checkpoint)
        if cmyk != nil { profile = .sRGB }
        let (xmp, xmpWarning) = options.acceptingMetadata(layout.xmp, kind: "XMP", format: "TIFF")
        warnings += [xmpWarning, file.warning].compactMap { $0 }
        return Page(
            pixels: pixels, orientation: layout.orientation, colorProfile: profile, xmp: xmp, colorModel: layout.sourceColorModel, warnings: warnings)
    }
}
