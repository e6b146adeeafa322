import CLCMS2
import CZlib
import Foundation

/// ICC profiles made with lcms2, and files tagged with them, for the colour management tests:
/// built in the test, so no binary fixture hides what it holds.
public enum ColorFixtures {
    /// The colour the Display P3 patch is stored as, and what it is in sRGB.
    public static let displayP3Patch: [UInt8] = [67, 151, 42]
    public static let displayP3PatchInSRGB: [UInt8] = [0, 153, 0]

    /// Display P3: DCI-P3 primaries, D65 white, sRGB's transfer curve (as Apple defines it).
    public static func displayP3Profile() -> Data {
        rgbProfile(description: "Display P3", red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
    }

    /// sRGB with its red and green primaries swapped: pixels stored as (G, R, B) read right only
    /// through this profile.
    public static func swappedRedGreenProfile() -> Data {
        rgbProfile(description: "sRGB, red and green swapped", red: (0.30, 0.60), green: (0.64, 0.33), blue: (0.15, 0.06))
    }

    /// Gray with a linear (gamma 1) curve: stored 128 is half the light, 188 in sRGB's curve.
    public static func linearGrayProfile() -> Data {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        let curve = cmsBuildGamma(nil, 1.0)
        defer { cmsFreeToneCurve(curve) }
        let profile = cmsCreateGrayProfile(&white, curve)!
        return save(profile, description: "Linear gray")
    }

    /// 300 bytes that claim to be a profile of 300 bytes but hold no valid header or tags.
    public static func brokenProfile() -> Data {
        var bytes = [UInt8](repeating: 0x5A, count: 300)
        bytes[0...3] = [0, 0, 0x01, 0x2C]
        return Data(bytes)
    }

    /// A CMYK output profile (ICC v2, whose lut16 holds a bare CLUT): a 2-point CLUT from ink (CMYK) to Lab, with a warm paper white
    /// (L 94, b 6) and inks that are not the naive complements, so conversion through it is far
    /// from the naive arithmetic.
    public static func cmykProfile() -> Data {
        let profile = cmsCreateProfilePlaceholder(nil)!
        cmsSetProfileVersion(profile, 2.1)
        cmsSetDeviceClass(profile, cmsSigOutputClass)
        cmsSetColorSpace(profile, cmsSigCmykData)
        cmsSetPCS(profile, cmsSigLabData)
        // Grid corners, C slowest and K fastest; Lab in lcms2's v4 16-bit encoding.
        var table: [UInt16] = []
        for c in 0...1 {
            for m in 0...1 {
                for y in 0...1 {
                    for k in 0...1 {
                        let (c, m, y, k) = (Double(c), Double(m), Double(y), Double(k))
                        let lightness = 94 * (1 - 0.35 * c - 0.45 * m - 0.08 * y) * (1 - 0.85 * k)
                        let a = 70 * m - 35 * c - 10 * y
                        let b = 6 + 80 * y - 45 * c - 25 * m
                        table += [UInt16(max(lightness, 0) / 100 * 65535), UInt16((a + 128) * 257), UInt16((b + 128) * 257)]
                    }
                }
            }
        }
        let pipeline = cmsPipelineAlloc(nil, 4, 3)!
        defer { cmsPipelineFree(pipeline) }
        cmsPipelineInsertStage(pipeline, cmsAT_BEGIN, cmsStageAllocCLut16bit(nil, 2, 4, 3, &table))
        cmsWriteTag(profile, cmsSigAToB0Tag, UnsafeMutableRawPointer(pipeline))
        var white = cmsD50_XYZ().pointee
        cmsWriteTag(profile, cmsSigMediaWhitePointTag, &white)
        return save(profile, description: "Test CMYK")
    }

    /// lcms2's own conversion of CMYK ink values (0 no ink, 255 full) through `profile` into
    /// sRGB, perceptual: what a decoder that applies the profile must give.
    public static func lcmsSRGB(fromCMYK ink: [UInt8], profile: Data) -> [UInt8] {
        let source = profile.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }!
        let target = cmsCreate_sRGBProfile()!
        defer {
            cmsCloseProfile(source)
            cmsCloseProfile(target)
        }
        let cmyk8 = UInt32(PT_CMYK) << 16 | 4 << 3 | 1, rgb8 = UInt32(PT_RGB) << 16 | 3 << 3 | 1
        let transform = cmsCreateTransform(source, cmyk8, target, rgb8, UInt32(INTENT_PERCEPTUAL), 0)!
        defer { cmsDeleteTransform(transform) }
        var output = [UInt8](repeating: 0, count: ink.count / 4 * 3)
        cmsDoTransform(transform, ink, &output, UInt32(ink.count / 4))
        return output
    }

    private static func rgbProfile(description: String, red: (Double, Double), green: (Double, Double), blue: (Double, Double)) -> Data {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: red.0, y: red.1, Y: 1), Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
            Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
        var parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = cmsBuildParametricToneCurve(nil, 4, &parameters)
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = cmsCreateRGBProfile(&white, &primaries, &curves)!
        return save(profile, description: description)
    }

    private static func save(_ profile: cmsHPROFILE, description: String) -> Data {
        defer { cmsCloseProfile(profile) }
        let text = cmsMLUalloc(nil, 1)
        defer { cmsMLUfree(text) }
        cmsMLUsetASCII(text, "en", "US", description)
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeMutableRawPointer(text))
        var size: UInt32 = 0
        cmsSaveProfileToMem(profile, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        cmsSaveProfileToMem(profile, &bytes, &size)
        // lcms2 stamps the header with the time of saving (bytes 24-35); a fixed date makes equal
        // calls give equal bytes.
        for index in 24..<36 { bytes[index] = 0 }
        return Data(bytes.prefix(Int(size)))
    }

    // MARK: Embedding

    /// `jpeg` with `profile` in APP2 `ICC_PROFILE` segments of at most `segmentBytes` profile
    /// bytes each, right after SOI. `sequence` renumbers the segments (to make broken files).
    public static func jpeg(
        _ jpeg: Data, embedding profile: Data, segmentBytes: Int = 65_519,
        sequence: ((Int, Int) -> (Int, Int))? = nil
    ) -> Data {
        let parts = stride(from: 0, to: profile.count, by: segmentBytes).map {
            profile[profile.startIndex + $0..<profile.startIndex + min($0 + segmentBytes, profile.count)]
        }
        var out = Data(jpeg.prefix(2))
        for (index, part) in parts.enumerated() {
            let (number, count) = sequence?(index + 1, parts.count) ?? (index + 1, parts.count)
            let length = 2 + 12 + 2 + part.count
            out += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            out += Array("ICC_PROFILE".utf8) + [0, UInt8(number), UInt8(count)]
            out += part
        }
        return out + jpeg.dropFirst(2)
    }

    /// `png` with an iCCP chunk holding `profile` (zlib-compressed) right after IHDR.
    public static func png(_ png: Data, embedding profile: Data) -> Data {
        var bound = compressBound(uLong(profile.count))
        var compressed = [UInt8](repeating: 0, count: Int(bound))
        _ = profile.withUnsafeBytes { compress(&compressed, &bound, $0.bindMemory(to: UInt8.self).baseAddress, uLong(profile.count)) }
        let payload = Array("ICC".utf8) + [0, 0] + compressed.prefix(Int(bound))
        return insertPNGChunk("iCCP", payload: payload, into: png)
    }

    /// `png` with a gAMA chunk (file gamma `gamma`) right after IHDR.
    public static func png(_ png: Data, gamma: Double) -> Data {
        insertPNGChunk("gAMA", payload: bigEndian(UInt32((gamma * 100_000).rounded())), into: png)
    }

    /// `png` with a `type` chunk holding `payload` right after IHDR.
    public static func insertPNGChunk(_ type: String, payload: [UInt8], into png: Data) -> Data {
        let typed = Array(type.utf8) + payload
        let crc = typed.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        let chunk = bigEndian(UInt32(payload.count)) + typed + bigEndian(crc)
        let afterIHDR = 8 + 4 + 4 + 13 + 4
        return Data(png.prefix(afterIHDR)) + chunk + png.dropFirst(afterIHDR)
    }

    /// A simple-format `webP` (one VP8 or VP8L chunk) rewritten as an extended file: VP8X with the
    /// ICC flag, an ICCP chunk holding `profile`, then the image chunk.
    public static func webP(_ webP: Data, embedding profile: Data, width: Int, height: Int) -> Data {
        var vp8x: [UInt8] = Array("VP8X".utf8) + littleEndian(10) + [0x20, 0, 0, 0]
        vp8x += littleEndian24(width - 1) + littleEndian24(height - 1)
        var iccp: [UInt8] = Array("ICCP".utf8) + littleEndian(UInt32(profile.count)) + Array(profile)
        if profile.count % 2 == 1 { iccp.append(0) }
        let body = vp8x + iccp + Array(webP.dropFirst(12))
        return Data(Array("RIFF".utf8) + littleEndian(UInt32(4 + body.count)) + Array("WEBP".utf8) + body)
    }

    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    public static func littleEndian(_ value: UInt32) -> [UInt8] { bigEndian(value).reversed() }

    static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }
}
