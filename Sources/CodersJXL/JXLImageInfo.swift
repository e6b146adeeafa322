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

    /// Bytes libjxl holds to decode one frame besides the output, as measured on libjxl 0.7 with
    /// 8-bit output: a lossy (VarDCT) frame keeps float planes of every channel (4 bytes a sample,
    /// plus as much again for its stages), a lossless (modular) one 32-bit integer channels.
    var decoderMemory: Int {
        guard let pixels = size.pixelCount else { return .max }
        let channels = pixelFormat.channelCount
        let perPixel = usesOriginalProfile ? 4 * channels + 4 : 8 * channels
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: perPixel)
        return overflow ? .max : bytes
    }

    /// Every limit a still image (or one frame) is held to, from the header alone.
    func checkLimits(_ options: ImageDecodeOptions) throws {
        try options.checkPixelLimit(size)
        try options.checkDecoderMemory(decoderMemory)
    }
}
