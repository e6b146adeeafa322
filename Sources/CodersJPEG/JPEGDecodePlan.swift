import CJPEG
import Foundation
import PipelineCore

/// How one JPEG is decoded, decided from its header and the decode options: libjpeg's output
/// colour space, its DCT scale (shrink-on-load), and the size the caller gets.
struct JPEGDecodePlan {
    enum ColorModel: Equatable {
        case gray
        case rgb
        /// CMYK or YCCK, which libjpeg hands out as CMYK; Adobe writes it inverted (APP14).
        case cmyk(inverted: Bool)
    }

    let sourceSize: ImageSize
    let targetSize: ImageSize
    let colorModel: ColorModel
    /// The colour space the header declares, as reported on the image.
    let sourceColorModel: String
    /// libjpeg's `scale_denom` (numerator 1): 1, 2, 4 or 8.
    let scaleDenominator: Int

    init(info: UnsafeMutablePointer<jpeg_decompress_struct>, options: ImageDecodeOptions) throws {
        sourceSize = ImageSize(width: Int(info.pointee.image_width), height: Int(info.pointee.image_height))
        try options.checkPixelLimit(sourceSize)
        targetSize = options.targetSize(for: sourceSize)
        scaleDenominator = Self.scaleDenominator(from: sourceSize, to: targetSize)
        switch info.pointee.jpeg_color_space {
        case JCS_GRAYSCALE: colorModel = .gray
        case JCS_CMYK, JCS_YCCK: colorModel = .cmyk(inverted: info.pointee.saw_Adobe_marker != 0)
        default: colorModel = .rgb
        }
        sourceColorModel = Self.sourceColorModel(info.pointee.jpeg_color_space)
    }

    static func sourceColorModel(_ space: J_COLOR_SPACE) -> String {
        switch space {
        case JCS_GRAYSCALE: ImageColorModel.gray
        case JCS_RGB: ImageColorModel.rgb
        case JCS_CMYK: ImageColorModel.cmyk
        case JCS_YCCK: ImageColorModel.ycck
        default: ImageColorModel.ycbcr
        }
    }

    /// The largest DCT reduction (1/2, 1/4, 1/8) whose output still covers the target on both
    /// sides, as imgproxy and Pillow's `draft` pick it: decoding at 1/8 costs a fraction of a full
    /// decode, and the IDCT's reduction is an area average, so the resample that follows only has
    /// to take the last (under 2x) step. (libvips keeps 2x for its final resample; with a 3.75x
    /// reduction that means a full-size decode and four times the pixels to filter.)
    static func scaleDenominator(from source: ImageSize, to target: ImageSize) -> Int {
        guard !target.isEmpty, target != source else { return 1 }
        for denominator in [8, 4, 2]
        where (source.width + denominator - 1) / denominator >= target.width
            && (source.height + denominator - 1) / denominator >= target.height
        {
            return denominator
        }
        return 1
    }

    /// Catmull-Rom: sharp like Lanczos-3 on photos at these (under 2x after the DCT scale, or a
    /// full-size decode under 2x) reductions, with two thirds of its taps.
    static let thumbnailFilter = ResamplingFilter.catmullRom

    /// What libjpeg writes per pixel.
    var outputComponents: Int {
        switch colorModel {
        case .gray: 1
        case .rgb: 3
        case .cmyk: 4
        }
    }

    var pixelFormat: PixelFormat { colorModel == .gray ? .gray8 : .rgb8 }

    /// Sets libjpeg's parameters; call between reading the header and starting to decompress.
    func apply(to info: UnsafeMutablePointer<jpeg_decompress_struct>) {
        switch colorModel {
        case .gray: info.pointee.out_color_space = JCS_GRAYSCALE
        case .rgb: info.pointee.out_color_space = JCS_RGB
        case .cmyk: info.pointee.out_color_space = JCS_CMYK
        }
        info.pointee.scale_num = 1
        info.pointee.scale_denom = UInt32(scaleDenominator)
        // When the resample that follows reduces by 2x or more, it smooths chroma far more than
        // libjpeg's "fancy" (triangle) chroma upsampling would, and the merged upsampler is faster;
        // a smaller last step keeps fancy upsampling, or chroma edges would show 2x2 steps.
        if leavesTwiceForResample { info.pointee.do_fancy_upsampling = 0 }
    }

    /// libjpeg's output rows (`outputComponents` bytes a pixel) as the caller's pixels: CMYK
    /// turned into RGB, then resampled to the exact target size.
    func pixels(fromOutput output: [UInt8], width: Int, height: Int) throws -> PixelBuffer {
        if case .cmyk(let inverted) = colorModel {
            return resampled(
                try PixelBuffer(
                    width: width, height: height, format: .rgb8,
                    bytes: Self.rgb(fromCMYK: output, inverted: inverted)))
        }
        return resampled(try PixelBuffer(width: width, height: height, format: pixelFormat, bytes: output))
    }

    /// Rows of libjpeg's output already in `pixelFormat`, resampled to the exact target size (or
    /// its top part for a partial image).
    func resampled(_ buffer: PixelBuffer) -> PixelBuffer {
        let target = partialTarget(forHeight: buffer.height, outputHeight: scaledHeight)
        return buffer.size == target ? buffer : buffer.resampled(to: target, filter: Self.thumbnailFilter)
    }

    /// True when libjpeg's output is at least twice the target on both sides.
    var leavesTwiceForResample: Bool {
        let scaled = ImageSize(width: (sourceSize.width + scaleDenominator - 1) / scaleDenominator, height: scaledHeight)
        return scaled.width >= 2 * targetSize.width && scaled.height >= 2 * targetSize.height
    }

    /// Height libjpeg gives the whole image at the plan's DCT scale.
    var scaledHeight: Int {
        (sourceSize.height + scaleDenominator - 1) / scaleDenominator
    }

    /// The target for `height` rows of a `fullHeight`-row output: the thumbnail size, or its top
    /// part for a partial image, so partial images are never larger than the final one.
    private func partialTarget(forHeight height: Int, outputHeight fullHeight: Int) -> ImageSize {
        guard height < fullHeight else { return targetSize }
        let rows = max((targetSize.height * height + fullHeight - 1) / fullHeight, 1)
        return ImageSize(width: targetSize.width, height: min(rows, targetSize.height))
    }

    /// Naive CMYK to RGB (no colour profile), as browsers do without one. Adobe's inverted CMYK
    /// stores 255 - ink, so there the product of the stored values is already the colour.
    static func rgb(fromCMYK cmyk: [UInt8], inverted: Bool) -> [UInt8] {
        let pixels = cmyk.count / 4
        return [UInt8](unsafeUninitializedCapacity: pixels * 3) { out, initialized in
            cmyk.withUnsafeBufferPointer { input in
                convertCMYK(input.baseAddress!, to: out.baseAddress!, pixels: pixels, inverted: inverted)
            }
            initialized = pixels * 3
        }
    }

    /// `rgb(fromCMYK:inverted:)` for `pixels` pixels from `input` into `output`.
    static func convertCMYK(_ input: UnsafePointer<UInt8>, to output: UnsafeMutablePointer<UInt8>, pixels: Int, inverted: Bool) {
        for i in 0..<pixels {
            var c = UInt32(input[i * 4]), m = UInt32(input[i * 4 + 1]), y = UInt32(input[i * 4 + 2]), k = UInt32(input[i * 4 + 3])
            if !inverted {
                c = 255 - c
                m = 255 - m
                y = 255 - y
                k = 255 - k
            }
            output[i * 3] = UInt8((c * k + 127) / 255)
            output[i * 3 + 1] = UInt8((m * k + 127) / 255)
            output[i * 3 + 2] = UInt8((y * k + 127) / 255)
        }
    }
}
