import Foundation

/// How an image's pixels are meant to be read as colours, as its file says: an embedded ICC
/// profile, or PNG's simpler facts (the sRGB chunk; gAMA with optional cHRM). Nil on an image
/// means the file said nothing, which viewers and ImagePipe take as sRGB.
///
/// Coders record it as decoded; the decode step converts the pixels to sRGB when a registered
/// `ImageColorConverter` reads it (see `ImageColorHandling`), and transforms keep it.
public enum ImageColorProfile: Hashable, Sendable {
    /// An ICC profile's bytes, exactly as embedded (JPEG APP2, PNG iCCP, WebP ICCP).
    case icc(Data)
    /// The pixels are sRGB (PNG's sRGB chunk, or pixels a converter has already made sRGB).
    case sRGB
    /// PNG's gAMA chunk, with cHRM's chromaticities when the file has them. `gamma` is the file
    /// gamma as PNG defines it (about 0.45455 for images encoded for a 2.2 display).
    case calibrated(gamma: Double, chromaticities: ImageChromaticities?)

    /// True when the pixels are sRGB already, or as good as: PNG's sRGB chunk, or a gAMA of
    /// 1/2.2 without primaries or with sRGB's, which browsers also read as sRGB.
    package var isSRGB: Bool {
        switch self {
        case .sRGB: true
        case .icc: false
        case .calibrated(let gamma, let chromaticities):
            abs(gamma - 1 / 2.2) < 0.0005 && (chromaticities.map { $0.isApproximately(.sRGB) } ?? true)
        }
    }

    /// The ICC bytes, when it is a profile.
    package var iccData: Data? {
        if case .icc(let data) = self { return data }
        return nil
    }

    /// The ICC header's colour space field (bytes 16-19), e.g. `RGB `, `GRAY`, `CMYK`.
    var iccColorSpace: String? {
        guard let data = iccData, data.count >= 20 else { return nil }
        let start = data.startIndex + 16
        return String(decoding: data[start..<start + 4], as: UTF8.self)
    }

    /// The ICC bytes an encoder embeds with pixels of `format`: the profile when it describes
    /// such pixels (an RGB profile for colour, a gray one for gray), else nil. So sRGB pixels
    /// (converted, or never tagged) are written untagged, and a profile that no longer fits (the
    /// CMYK profile of a JPEG decoded to RGB) is never written beside pixels it would misread.
    public func iccData(describing format: PixelFormat) -> Data? {
        guard let data = iccData, let space = iccColorSpace else { return nil }
        return space == (format.isGray ? "GRAY" : "RGB ") ? data : nil
    }
}

/// CIE xy chromaticities of the white point and the three primaries (PNG's cHRM).
public struct ImageChromaticities: Hashable, Sendable {
    public var whiteX, whiteY: Double
    public var redX, redY: Double
    public var greenX, greenY: Double
    public var blueX, blueY: Double

    public init(
        whiteX: Double, whiteY: Double, redX: Double, redY: Double,
        greenX: Double, greenY: Double, blueX: Double, blueY: Double
    ) {
        (self.whiteX, self.whiteY) = (whiteX, whiteY)
        (self.redX, self.redY) = (redX, redY)
        (self.greenX, self.greenY) = (greenX, greenY)
        (self.blueX, self.blueY) = (blueX, blueY)
    }

    /// sRGB's (ITU-R BT.709 primaries, D65 white).
    public static let sRGB = ImageChromaticities(
        whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33,
        greenX: 0.30, greenY: 0.60, blueX: 0.15, blueY: 0.06)

    /// Equal within 0.001 in every coordinate (cHRM stores five decimals; writers round differently).
    func isApproximately(_ other: ImageChromaticities) -> Bool {
        let pairs = [
            (whiteX, other.whiteX), (whiteY, other.whiteY), (redX, other.redX), (redY, other.redY),
            (greenX, other.greenX), (greenY, other.greenY), (blueX, other.blueX), (blueY, other.blueY),
        ]
        return pairs.allSatisfy { abs($0.0 - $0.1) < 0.001 }
    }
}
