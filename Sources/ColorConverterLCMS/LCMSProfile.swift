import CLCMS2
import Foundation
import PipelineCore

/// An open lcms2 profile, closed when released. Made from what a file said (`ImageColorProfile`)
/// or as one of the sRGB targets.
final class LCMSProfile {
    let handle: cmsHPROFILE
    /// Keeps the context the profile was opened in alive as long as the profile.
    private let context: LCMSContext

    private init(_ handle: cmsHPROFILE, context: LCMSContext) {
        self.handle = handle
        self.context = context
    }

    deinit { cmsCloseProfile(handle) }

    /// The profile a file's colour description stands for. `gray` picks the gray form of PNG's
    /// gAMA facts (a gray PNG's gamma describes one channel).
    static func source(_ profile: ImageColorProfile, gray: Bool, in context: LCMSContext) throws -> LCMSProfile {
        switch profile {
        case .icc(let data):
            guard data.count >= 128, data.count <= Int(UInt32.max) else {
                throw ImageColorConversionError(reason: "ICC profile of \(data.count) bytes is too short to be one")
            }
            let handle = data.withUnsafeBytes { cmsOpenProfileFromMemTHR(context.handle, $0.baseAddress, UInt32($0.count)) }
            guard let handle else { throw context.failure("lcms2 could not read the ICC profile") }
            return LCMSProfile(handle, context: context)
        case .sRGB:
            return try gray ? sRGBGray(in: context) : sRGB(in: context)
        case .calibrated(let gamma, let chromaticities):
            guard gamma.isFinite, gamma > 0.01, gamma < 100 else {
                throw ImageColorConversionError(reason: "PNG gAMA of \(gamma) is not a usable gamma")
            }
            // gAMA is the encoding exponent; the profile's curve decodes, so it takes the inverse.
            let curve = try ToneCurve(cmsBuildGamma(context.handle, 1 / gamma), context: context)
            let chroma = chromaticities ?? .sRGB
            var white = cmsCIExyY(x: chroma.whiteX, y: chroma.whiteY, Y: 1)
            if gray { return try make(in: context) { cmsCreateGrayProfileTHR(context.handle, &white, curve.handle) } }
            var primaries = cmsCIExyYTRIPLE(
                Red: cmsCIExyY(x: chroma.redX, y: chroma.redY, Y: 1),
                Green: cmsCIExyY(x: chroma.greenX, y: chroma.greenY, Y: 1),
                Blue: cmsCIExyY(x: chroma.blueX, y: chroma.blueY, Y: 1))
            var curves: [OpaquePointer?] = [curve.handle, curve.handle, curve.handle]
            return try make(in: context) { cmsCreateRGBProfileTHR(context.handle, &white, &primaries, &curves) }
        }
    }

    /// lcms2's built-in sRGB.
    static func sRGB(in context: LCMSContext) throws -> LCMSProfile {
        try make(in: context) { cmsCreate_sRGBProfileTHR(context.handle) }
    }

    /// Gray with sRGB's tone curve and D65 white: where gray pixels go, so they stay one channel.
    static func sRGBGray(in context: LCMSContext) throws -> LCMSProfile {
        // IEC 61966-2-1: linear below 0.04045, else ((v + 0.055) / 1.055)^2.4 (lcms2 type 4).
        var parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = try ToneCurve(cmsBuildParametricToneCurve(context.handle, 4, &parameters), context: context)
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        return try make(in: context) { cmsCreateGrayProfileTHR(context.handle, &white, curve.handle) }
    }

    private static func make(in context: LCMSContext, _ create: () -> cmsHPROFILE?) throws -> LCMSProfile {
        guard let handle = create() else { throw context.failure("lcms2 could not build a profile") }
        return LCMSProfile(handle, context: context)
    }

    /// The colour space the profile describes (RGB, gray, CMYK...).
    var colorSpace: cmsColorSpaceSignature { cmsGetColorSpace(handle) }

    /// The profile's description tag, e.g. "Display P3"; nil when it has none.
    var profileDescription: String? {
        let count = Int(cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", nil, 0))
        guard count > 1, count <= 4096 else { return nil }
        var buffer = [CChar](repeating: 0, count: count)
        _ = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, UInt32(count))
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// A tone curve, freed when released (profiles copy the curves they are built from).
    private final class ToneCurve {
        let handle: OpaquePointer

        init(_ handle: OpaquePointer?, context: LCMSContext) throws {
            guard let handle else { throw context.failure("lcms2 could not build a tone curve") }
            self.handle = handle
        }

        deinit { cmsFreeToneCurve(handle) }
    }
}
