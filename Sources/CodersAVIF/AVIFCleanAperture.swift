import CAVIF
import PipelineCore

/// The rectangle of the stored pixels that a `clap` (clean aperture) property keeps, computed as
/// libavif ≥ 1.0 computes it (`avifCropRectFromCleanApertureBox`): the aperture's width and height
/// and the offset of its centre from the image's centre are fractions, and MIAF requires the
/// width, height and top-left corner to come out whole. libavif only reports `clap`; the coder
/// crops to it (as libheif does for HEIF), before `irot` and `imir`, which MIAF applies after it.
struct AVIFCleanAperture: Equatable, Sendable {
    let x: Int
    let y: Int
    let width: Int
    let height: Int

    var size: ImageSize { ImageSize(width: width, height: height) }

    /// What a parsed image's `clap` asks for.
    enum Outcome: Equatable, Sendable {
        case none
        case crop(AVIFCleanAperture)
        /// Values no rectangle of whole pixels inside the image matches: the image is shown
        /// uncropped, as libavif 1.x does with its strict flags off (ours are).
        case invalid(String)
    }

    static func outcome(of image: avifImage) -> Outcome {
        guard image.transformFlags & avifTransformFlags(AVIF_TRANSFORM_CLAP.rawValue) != 0 else { return .none }
        let clap = image.clap
        return outcome(
            width: (clap.widthN, clap.widthD), height: (clap.heightN, clap.heightD), horizontalOffset: (clap.horizOffN, clap.horizOffD),
            verticalOffset: (clap.vertOffN, clap.vertOffD), imageWidth: image.width, imageHeight: image.height)
    }

    /// The box's fields as stored (numerators and denominators are signed 32-bit numbers) for an
    /// image of `imageWidth` x `imageHeight`.
    static func outcome(
        width: (UInt32, UInt32), height: (UInt32, UInt32), horizontalOffset: (UInt32, UInt32), verticalOffset: (UInt32, UInt32),
        imageWidth: UInt32, imageHeight: UInt32
    ) -> Outcome {
        let (widthN, widthD) = (Int64(Int32(bitPattern: width.0)), Int64(Int32(bitPattern: width.1)))
        let (heightN, heightD) = (Int64(Int32(bitPattern: height.0)), Int64(Int32(bitPattern: height.1)))
        let horizontal = Fraction(Int64(Int32(bitPattern: horizontalOffset.0)), Int64(Int32(bitPattern: horizontalOffset.1)))
        let vertical = Fraction(Int64(Int32(bitPattern: verticalOffset.0)), Int64(Int32(bitPattern: verticalOffset.1)))
        // ISO/IEC 14496-12, 12.1.4.1: denominators strictly positive, width and height positive.
        guard widthD > 0, heightD > 0, horizontal.d > 0, vertical.d > 0 else { return .invalid("a denominator is not positive") }
        guard widthN >= 0, heightN >= 0 else { return .invalid("its width or height is negative") }
        guard widthN % widthD == 0, heightN % heightD == 0 else { return .invalid("its width or height is not a whole number") }
        let clapWidth = widthN / widthD, clapHeight = heightN / heightD
        guard imageWidth <= Int32.max, imageHeight <= Int32.max else { return .invalid("the image is too large") }
        guard let centreX = Fraction.centre(of: Int64(imageWidth)).adding(horizontal),
            let centreY = Fraction.centre(of: Int64(imageHeight)).adding(vertical),
            let left = centreX.subtracting(Fraction(clapWidth, 2)), let top = centreY.subtracting(Fraction(clapHeight, 2))
        else { return .invalid("its offsets overflow") }
        guard left.n % left.d == 0, top.n % top.d == 0 else { return .invalid("its top-left corner is not on a whole pixel") }
        guard left.n >= 0, top.n >= 0 else { return .invalid("it starts left of or above the image") }
        let rect = AVIFCleanAperture(x: Int(left.n / left.d), y: Int(top.n / top.d), width: Int(clapWidth), height: Int(clapHeight))
        guard rect.width > 0, rect.height > 0 else { return .invalid("it is empty") }
        guard rect.x + rect.width <= Int(imageWidth), rect.y + rect.height <= Int(imageHeight) else { return .invalid("it reaches outside the image") }
        return .crop(rect)
    }

    /// libavif's `avifFraction`: 32-bit numerator and denominator, every step checked for
    /// overflow, simplified after each operation.
    private struct Fraction {
        var n: Int64
        var d: Int64

        init(_ n: Int64, _ d: Int64) {
            self.n = n
            self.d = d
        }

        /// `dimension / 2`, as a whole number when it is even.
        static func centre(of dimension: Int64) -> Fraction {
            dimension % 2 == 0 ? Fraction(dimension / 2, 1) : Fraction(dimension, 2)
        }

        var simplified: Fraction {
            var (a, b) = (abs(n), abs(d))
            while b != 0 { (a, b) = (b, a % b) }
            return a > 1 ? Fraction(n / a, d / a) : self
        }

        func adding(_ other: Fraction) -> Fraction? {
            guard let (a, b) = Fraction.commonDenominator(self, other), let sum = Fraction.int32(a.n + b.n) else { return nil }
            return Fraction(sum, a.d).simplified
        }

        func subtracting(_ other: Fraction) -> Fraction? {
            guard let (a, b) = Fraction.commonDenominator(self, other), let difference = Fraction.int32(a.n - b.n) else { return nil }
            return Fraction(difference, a.d).simplified
        }

        private static func commonDenominator(_ first: Fraction, _ second: Fraction) -> (Fraction, Fraction)? {
            let a = first.simplified, b = second.simplified
            guard a.d != b.d else { return (a, b) }
            guard let an = int32(a.n * b.d), let ad = int32(a.d * b.d), let bn = int32(b.n * a.d), let bd = int32(b.d * a.d) else { return nil }
            return (Fraction(an, ad), Fraction(bn, bd))
        }

        private static func int32(_ value: Int64) -> Int64? {
            value >= Int64(Int32.min) && value <= Int64(Int32.max) ? value : nil
        }
    }
}
