import CLCMS2
import PipelineCore

/// One lcms2 transform from a file's profile to sRGB (or sRGB gray): for pixels of one format, or
/// for CMYK rows (plain or Adobe-inverted) into RGB.
///
/// `@unchecked Sendable`: lcms2 transforms may be used from many threads at once once created
/// (`cmsDoTransform` keeps its per-call state on the stack), and nothing changes after `init`.
final class LCMSTransform: @unchecked Sendable {
    /// What the transform reads.
    enum Input: Hashable, Sendable {
        /// Pixels of this format, written back in the same format.
        case pixels(PixelFormat)
        /// CMYK, 4 bytes a pixel, written as RGB. `inverted`: Adobe's form, 255 meaning no ink.
        case cmyk(inverted: Bool)
    }

    private let handle: cmsHTRANSFORM
    /// Deinitialised after `handle` is deleted (stored properties outlive `deinit`'s body).
    private let context: LCMSContext
    let input: Input

    init(from profile: ImageColorProfile, input: Input, intent: ImageRenderingIntent) throws {
        let context = try LCMSContext()
        let gray = if case .pixels(let format) = input { format.isGray } else { false }
        let source = try LCMSProfile.source(profile, gray: gray, in: context)
        let (expected, inputLayout, outputLayout): (cmsColorSpaceSignature, UInt32, UInt32)
        switch input {
        case .pixels(let format):
            (expected, inputLayout, outputLayout) = (format.isGray ? cmsSigGrayData : cmsSigRgbData, Self.layout(of: format), Self.layout(of: format))
        case .cmyk(let inverted):
            (expected, inputLayout, outputLayout) = (cmsSigCmykData, Self.cmykLayout(inverted: inverted), Self.layout(of: .rgb8))
        }
        guard source.colorSpace == expected else {
            throw ImageColorConversionError(reason: "a \(Self.name(of: source.colorSpace)) profile does not describe \(Self.name(of: input)) pixels")
        }
        let target = try gray ? LCMSProfile.sRGBGray(in: context) : LCMSProfile.sRGB(in: context)
        let lcmsIntent = intent == .perceptual ? UInt32(INTENT_PERCEPTUAL) : UInt32(INTENT_RELATIVE_COLORIMETRIC)
        let flags = if case .pixels = input { UInt32(cmsFLAGS_COPY_ALPHA) } else { UInt32(0) }
        guard
            let handle = cmsCreateTransformTHR(
                context.handle, source.handle, inputLayout, target.handle, outputLayout,
                lcmsIntent, flags)
        else {
            throw context.failure("lcms2 could not make a transform from the profile")
        }
        self.handle = handle
        self.context = context
        self.input = input
    }

    deinit { cmsDeleteTransform(handle) }

    /// The pixels in sRGB, alpha copied as is.
    func apply(to pixels: PixelBuffer) throws -> PixelBuffer {
        precondition(input == .pixels(pixels.format))
        let count = pixels.width * pixels.height
        let step = pixels.format.bytesPerPixel
        let output = [UInt8](unsafeUninitializedCapacity: pixels.bytes.count) { out, initialized in
            pixels.bytes.withUnsafeBufferPointer { input in
                // cmsDoTransform counts pixels in 32 bits; a canvas may hold more.
                var done = 0
                while done < count {
                    let batch = min(count - done, 1 << 24)
                    cmsDoTransform(handle, input.baseAddress! + done * step, out.baseAddress! + done * step, UInt32(batch))
                    done += batch
                }
            }
            initialized = pixels.bytes.count
        }
        return try PixelBuffer(width: pixels.width, height: pixels.height, format: pixels.format, bytes: output)
    }

    /// CMYK rows as RGB; a strip of a JPEG at a time, so far fewer pixels than 32 bits count.
    func convertCMYK(_ cmyk: UnsafeBufferPointer<UInt8>, into rgb: UnsafeMutableBufferPointer<UInt8>) {
        guard case .cmyk = input else { preconditionFailure("not a CMYK transform") }
        let count = cmyk.count / 4
        precondition(rgb.count >= count * 3 && count <= Int(UInt32.max))
        guard count > 0 else { return }
        cmsDoTransform(handle, cmyk.baseAddress!, rgb.baseAddress!, UInt32(count))
    }

    /// lcms2's pixel layout word for an ImagePipe format (its TYPE_GRAY_8, TYPE_GRAYA_8,
    /// TYPE_RGB_8 and TYPE_RGBA_8, which Swift cannot import as they are macros of macros).
    static func layout(of format: PixelFormat) -> UInt32 {
        let space = UInt32(format.isGray ? PT_GRAY : PT_RGB) << 16
        let channels = UInt32(format.isGray ? 1 : 3) << 3
        let extra = UInt32(format.hasAlpha ? 1 : 0) << 7
        return space | extra | channels | 1
    }

    /// TYPE_CMYK_8, or TYPE_CMYK_8_REV (lcms2's "flavor": 0 is full ink) for Adobe's inverted form.
    static func cmykLayout(inverted: Bool) -> UInt32 {
        UInt32(PT_CMYK) << 16 | 4 << 3 | 1 | (inverted ? 1 << 13 : 0)
    }

    static func name(of input: Input) -> String {
        switch input {
        case .pixels(let format): format.rawValue
        case .cmyk: "CMYK"
        }
    }

    static func name(of space: cmsColorSpaceSignature) -> String {
        switch space {
        case cmsSigRgbData: "RGB"
        case cmsSigGrayData: "gray"
        case cmsSigCmykData: "CMYK"
        case cmsSigLabData: "Lab"
        case cmsSigYCbCrData: "YCbCr"
        default: "non-RGB"
        }
    }
}
