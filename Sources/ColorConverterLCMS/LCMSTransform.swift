import CLCMS2
import PipelineCore

/// One lcms2 transform from a file's profile to sRGB (or sRGB gray) for one pixel format.
///
/// `@unchecked Sendable`: lcms2 transforms may be used from many threads at once once created
/// (`cmsDoTransform` keeps its per-call state on the stack), and nothing changes after `init`.
final class LCMSTransform: @unchecked Sendable {
    private let handle: cmsHTRANSFORM
    /// Deinitialised after `handle` is deleted (stored properties outlive `deinit`'s body).
    private let context: LCMSContext
    let format: PixelFormat

    init(from profile: ImageColorProfile, format: PixelFormat, intent: ImageRenderingIntent) throws {
        let context = try LCMSContext()
        let source = try LCMSProfile.source(profile, gray: format.isGray, in: context)
        let expected = format.isGray ? cmsSigGrayData : cmsSigRgbData
        guard source.colorSpace == expected else {
            throw ImageColorConversionError(reason: "a \(Self.name(of: source.colorSpace)) profile does not describe \(format.rawValue) pixels")
        }
        let target = try format.isGray ? LCMSProfile.sRGBGray(in: context) : LCMSProfile.sRGB(in: context)
        let layout = Self.layout(of: format)
        let lcmsIntent = intent == .perceptual ? UInt32(INTENT_PERCEPTUAL) : UInt32(INTENT_RELATIVE_COLORIMETRIC)
        guard let handle = cmsCreateTransformTHR(context.handle, source.handle, layout, target.handle, layout,
                                                 lcmsIntent, UInt32(cmsFLAGS_COPY_ALPHA)) else {
            throw context.failure("lcms2 could not make a transform from the profile")
        }
        self.handle = handle
        self.context = context
        self.format = format
    }

    deinit { cmsDeleteTransform(handle) }

    /// The pixels in sRGB, alpha copied as is.
    func apply(to pixels: PixelBuffer) throws -> PixelBuffer {
        precondition(pixels.format == format)
        let count = pixels.width * pixels.height
        let step = format.bytesPerPixel
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
        return try PixelBuffer(width: pixels.width, height: pixels.height, format: format, bytes: output)
    }

    /// lcms2's pixel layout word for an ImagePipe format (its TYPE_GRAY_8, TYPE_GRAYA_8,
    /// TYPE_RGB_8 and TYPE_RGBA_8, which Swift cannot import as they are macros of macros).
    static func layout(of format: PixelFormat) -> UInt32 {
        let space = UInt32(format.isGray ? PT_GRAY : PT_RGB) << 16
        let channels = UInt32(format.isGray ? 1 : 3) << 3
        let extra = UInt32(format.hasAlpha ? 1 : 0) << 7
        return space | extra | channels | 1
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
