import CLCMS2
import Foundation
import PipelineCore

/// Colour management on Little CMS 2: converts pixels described by an ICC profile (RGB or gray)
/// or by PNG's gAMA/cHRM facts to sRGB, and CMYK JPEGs' rows through their CMYK profile, as libvips, imgproxy and sharp do on lcms2.
///
/// Register it once and the decode step converts every image that carries a profile:
///
///     ImageColorConvertersManager.shared.add(LCMSColorConverter())
///
/// Transforms are cached per profile and shared by every thread. lcms2 never prints: its error
/// messages become the reason of the image's `.colorProfileIgnored` warning. A CMYK profile is
/// used only on CMYK rows (`cmykConverter`, which the JPEG decoder calls); Lab profiles are refused.
public struct LCMSColorConverter: ImageColorConverter {
    private let cache: LCMSTransformCache

    /// Enough for the profiles a site serves at once (cameras, phones, editors).
    public static let defaultMaxCachedTransforms = 64
    /// Bytes of the profiles behind cached transforms; a larger profile is converted uncached.
    public static let defaultMaxCachedProfileBytes = 16 << 20

    public init(
        maxCachedTransforms: Int = Self.defaultMaxCachedTransforms,
        maxCachedProfileBytes: Int = Self.defaultMaxCachedProfileBytes
    ) {
        cache = LCMSTransformCache(maxEntries: maxCachedTransforms, maxProfileBytes: maxCachedProfileBytes)
    }

    public func canConvert(from profile: ImageColorProfile) -> Bool {
        switch profile {
        case .icc, .calibrated: true
        case .sRGB: false
        }
    }

    public func convertToSRGB(_ pixels: PixelBuffer, from profile: ImageColorProfile, intent: ImageRenderingIntent) throws -> PixelBuffer {
        if profile.isSRGB { return pixels }
        return try transform(profile, input: .pixels(pixels.format), intent: intent).apply(to: pixels)
    }

    public func cmykConverter(from profile: ImageColorProfile, inverted: Bool, intent: ImageRenderingIntent) throws -> (any CMYKRowConverter)? {
        CMYKRows(transform: try transform(profile, input: .cmyk(inverted: inverted), intent: intent))
    }

    private func transform(_ profile: ImageColorProfile, input: LCMSTransform.Input, intent: ImageRenderingIntent) throws -> LCMSTransform {
        let key = LCMSTransformCache.Key(profile: profile, input: input, intent: intent)
        return try cache.transform(for: key) { try LCMSTransform(from: $0.profile, input: $0.input, intent: $0.intent) }
    }

    /// A cached CMYK transform, as the JPEG decoder calls it strip by strip.
    private struct CMYKRows: CMYKRowConverter {
        let transform: LCMSTransform

        func convert(_ cmyk: UnsafeBufferPointer<UInt8>, into rgb: UnsafeMutableBufferPointer<UInt8>) {
            transform.convertCMYK(cmyk, into: rgb)
        }
    }

    public func profileDescription(_ profile: ImageColorProfile) -> String? {
        guard profile.iccData != nil, let context = try? LCMSContext() else { return nil }
        return (try? LCMSProfile.source(profile, gray: false, in: context))?.profileDescription
    }

    /// Transforms cached now (for tests).
    var cachedTransformCount: Int { cache.count }
}
