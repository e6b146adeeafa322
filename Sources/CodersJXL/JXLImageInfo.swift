import CJXL
import PipelineCore

/// What a JPEG XL header says about the image, as the pipeline models it.
struct JXLImageInfo {
    /// The stored size (before orientation).
    let size: ImageSize
    /// Gray or colour, with alpha when the file has an alpha channel; 8 bits a sample whatever
    /// the file's depth (libjxl rounds).
    let pixelFormat: PixelFormat
    let orientation: ImageOrientation
    let isAnimated: Bool
    /// Times to play; 0 means forever.
    let loopCount: Int
    /// Seconds per animation tick (0 for a still image).
    let secondsPerTick: Double
    /// Lossless (modular) files keep their own colour space; lossy ones are coded in XYB.
    let usesOriginalProfile: Bool

    init(_ info: JxlBasicInfo) {
        size = ImageSize(width: Int(info.xsize), height: Int(info.ysize))
        let gray = info.num_color_channels == 1
        let alpha = info.alpha_bits > 0
        pixelFormat = gray ? (alpha ? .grayAlpha8 : .gray8) : (alpha ? .rgba8 : .rgb8)
        orientation = ImageOrientation(exifValue: Int(info.orientation.rawValue))
        isAnimated = info.have_animation != 0
        loopCount = Int(info.animation.num_loops)
        let ticks = Double(info.animation.tps_numerator)
        secondsPerTick = isAnimated && ticks > 0 ? Double(info.animation.tps_denominator) / ticks : 0
        usesOriginalProfile = info.uses_original_profile != 0
    }

    /// Bytes libjxl holds to decode one frame besides the output. libjxl 0.7 decodes a lossy
    /// (VarDCT) frame group by group, with whole-frame planes only for the 1:8 DC image: about 3
    /// bytes a pixel measured on a 9-megapixel photo, counted as 2 a channel. A lossless (modular)
    /// frame may hold every channel whole as 32-bit integers (global transforms such as palettes
    /// and squeeze need them), so 4 bytes a channel.
    var decoderMemory: Int {
        guard let pixels = size.pixelCount else { return .max }
        let perPixel = (usesOriginalProfile ? 4 : 2) * pixelFormat.channelCount
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: perPixel)
        return overflow ? .max : bytes
    }

    /// Every limit a still image (or one frame) is held to, from the header alone.
    func checkLimits(_ options: ImageDecodeOptions) throws {
        try options.checkPixelLimit(size)
        try options.checkDecoderMemory(decoderMemory)
    }
}
