import CAVIF
import PipelineCore

/// What libavif and libaom are told for one encode: the speed, and the quantizer that `quality`
/// maps to for colour and alpha (0 for both when lossless). libaom's other settings stay
/// libavif's: asking for `tune=ssim` changes no byte, and letting the quantizer float around a
/// `cq-level`, adaptive quantisation (`aq-mode`, `deltaq-mode`) or 4:4:4 gave the same or larger
/// files at equal SSIMULACRA2 (Benchmarks/rate-quality-RESULTS.md), so one fixed quantizer it is.
struct AVIFEncoderSettings: Equatable {
    var lossless: Bool
    var speed: Int32
    var quantizer: Int32

    init(_ options: ImageEncodeOptions) {
        lossless = options.lossless
        speed = Int32(min(max(options.extras[.avifSpeed] ?? AVIFCoder.defaultSpeed, 0), 10))
        quantizer = options.lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : Self.quantizer(forQualityPercent: options.qualityPercent)
    }

    /// libavif's quantizer (0 best, 63 worst) for a quality, as libavif 1.x maps its 0-100
    /// quality (and libheif its `cq-level`, so a quality means what it means to vips).
    static func quantizer(forQualityPercent quality: Int) -> Int32 {
        Int32(((100 - min(max(quality, 0), 100)) * 63 + 50) / 100)
    }

    /// Sets these on `encoder`, with one thread (the pipeline runs encodes in parallel itself).
    func apply(to encoder: UnsafeMutablePointer<avifEncoder>) {
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = speed
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
    }
}
