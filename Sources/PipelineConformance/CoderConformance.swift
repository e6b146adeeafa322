import Foundation
import Logging
import PipelineCore
import Testing

/// The contracts every `ImageCoder` keeps, checked on samples the plugin author provides:
///
/// ```swift
/// @Test func myCoderKeepsTheContracts() async throws {
///     await CoderConformance.check(MyCoder(), samples: [try CoderSample(file: url, format: .bmp, size: .init(width: 64, height: 32))])
/// }
/// ```
/// Each broken contract is one failure naming it (`canDecode.cheap`, `decode.truncated`, …) and the
/// sample. Plugins.md explains each.
///
/// A coder that crashes takes the test process with it, so the kit says what it is about to do
/// through `Options.logger` first: one line per sample and per hostile batch, and at `.debug` one
/// line before every damaged copy it decodes. The last line before a crash names the contract and
/// the sample.
public enum CoderConformance {
    public struct Options: Sendable {
        /// How long one decode may take on hostile input before it counts as a hang.
        public var timeLimit: Duration = .seconds(10)
        /// Truncated prefixes tried per sample.
        public var truncations = 8
        /// Damaged copies (random bytes flipped) tried per sample.
        public var corruptions = 12
        /// Seed for the damage, so a failure can be reproduced.
        public var seed: UInt64 = 0x1A6E_F1FE
        /// Encode qualities tried in round trips.
        public var qualities: [Double] = [0.3, 0.9, 1.0]
        /// An ICC profile, for a coder that claims to write `ImageMetadata.colorProfile`: each
        /// still sample whose pixels it can describe (an RGB profile on colour, a gray one on gray)
        /// is tagged with it, encoded and decoded, and must come back with the same bytes
        /// (`encode.colorProfile`). Nil: the coder makes no such claim.
        public var colorProfile: Data?
        /// For a coder that claims to write `ImageMetadata.exif` and `.xmp`: each still sample is
        /// given the kit's EXIF (orientation 1 and a copyright tag) and XMP packet, encoded and
        /// decoded, and must come back with both byte for byte (`encode.metadata`).
        public var writesMetadata = false
        /// Where the kit names each sample and contract before running it, so a crash is traceable
        /// from the last line. Default: standard error at `.info` (a line per sample and per hostile
        /// batch); `.debug` adds a line before each damaged copy; a no-op logger silences it.
        public var logger = Logger(label: "PipelineConformance") { label in StreamLogHandler.standardError(label: label) }
        /// Lossy round trips may change pixels; they must keep size and frames.
        public init() {}
    }

    /// Runs every contract and records a Swift Testing issue per broken one.
    public static func check(
        _ coder: some ImageCoder, samples: [CoderSample], options: Options = Options(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await failures(for: coder, samples: samples, options: options).recordIssues(sourceLocation: sourceLocation)
    }

    /// Runs every contract and returns what broke (empty when all hold). For XCTest:
    /// `let failures = await CoderConformance.failures(for: coder, samples: samples); XCTAssertEqual(failures, [])`.
    public static func failures(for coder: some ImageCoder, samples: [CoderSample], options: Options = Options()) async -> [ConformanceFailure] {
        var log = FailureLog()
        if samples.isEmpty { log.fail("samples", "-", "give at least one sample") }
        for sample in samples {
            options.logger.info("\(type(of: coder)): checking sample '\(sample.name)' (\(sample.data.count) bytes)")
            await checkSniffing(coder, sample, &log)
            guard let image = await checkDecode(coder, sample, options, &log) else { continue }
            await checkDamage(coder, sample, options, &log)
            await checkLimits(coder, sample, options, &log)
            await checkThumbnail(coder, sample, options, &log)
            await checkFirstFrameOnly(coder, sample, options, &log)
            await checkRoundTrip(coder, sample, image, options, &log)
            await checkColorProfile(coder, sample, image, options, &log)
            await checkMetadata(coder, sample, image, options, &log)
            if image.isAnimated { await AnimatedCoderContracts.check(image, sample, &log) }
            if let progressive = coder as? any ProgressiveImageCoder {
                await ProgressiveCoderContracts.check(progressive, sample, image, options, &log)
            }
        }
        return log.failures
    }

    /// Headers of other formats, for "canDecode says no to what it does not decode".
    static let foreignHeaders: [(ImageFormat, Data)] = [
        (.png, Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52])),
        (.jpeg, Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0x49, 0x46, 0, 1])),
        (.gif, Data("GIF89a\u{1}\0\u{1}\0\0\0\0".utf8)),
        (.webp, Data("RIFF\u{1A}\0\0\0WEBPVP8L\u{0D}\0\0\0".utf8)),
        (.undefined, Data("plain text, not an image".utf8)),
    ]

    static func checkSniffing(_ coder: some ImageCoder, _ sample: CoderSample, _ log: inout FailureLog) async {
        log.expect(coder.canDecode(sample.data), "canDecode.sample", sample.name, "canDecode is false for a sample it must decode")
        // A coder that decodes in canDecode answers differently for the header alone.
        let header = Data(sample.data.prefix(64))
        log.expect(
            coder.canDecode(header) == coder.canDecode(sample.data), "canDecode.cheap", sample.name,
            "canDecode answers differently for the first 64 bytes: it must judge magic bytes only, not decode")
        for (format, bytes) in foreignHeaders where format != sample.format {
            log.expect(!coder.canDecode(bytes), "canDecode.foreign", sample.name, "canDecode accepts a \(format.identifier) header")
        }
    }

    static func checkDecode(_ coder: some ImageCoder, _ sample: CoderSample, _ options: Options, _ log: inout FailureLog) async -> Image? {
        let data = sample.data
        switch await TimeBound.run(options.timeLimit, { try coder.decode(data, options: ImageDecodeOptions()) }) {
        case .timedOut:
            log.fail("decode.sample", sample.name, "decoding the valid sample took longer than \(options.timeLimit) (a hang)")
            return nil
        case .threw(let error):
            log.fail("decode.sample", sample.name, "decoding the valid sample failed: \(TimeBound.Outcome<Image>.threw(error))")
            return nil
        case .returned(let image):
            log.expect(image.pixelSize == sample.size, "decode.size", sample.name, "decoded \(image.pixelSize), expected \(sample.size)")
            log.expect(image.frameCount == sample.frameCount, "decode.frames", sample.name, "decoded \(image.frameCount) frames, expected \(sample.frameCount)")
            if let loops = sample.loopCount {
                log.expect(image.loopCount == loops, "decode.loopCount", sample.name, "loop count \(image.loopCount), expected \(loops)")
            }
            if let reference = sample.reference {
                if let difference = image.firstFrame.maxDifference(from: reference) {
                    log.expect(
                        difference <= sample.tolerance, "decode.pixels", sample.name,
                        "pixels differ from the reference by up to \(difference) (tolerance \(sample.tolerance))")
                } else {
                    log.fail("decode.pixels", sample.name, "reference is \(reference.size), image is \(image.pixelSize)")
                }
            }
            return image
        }
    }

    /// Truncated and damaged copies must decode (with at most `ImageDecodeWarning.maxPerImage`
    /// warnings) or fail with an `ImagePipeError`, within the time limit.
    static func checkDamage(_ coder: some ImageCoder, _ sample: CoderSample, _ options: Options, _ log: inout FailureLog) async {
        var random = SplitMix64(seed: options.seed ^ UInt64(truncatingIfNeeded: sample.data.count))
        var cases: [(String, Data)] = []
        let count = sample.data.count
        for i in 0..<options.truncations {
            let length = i == 0 ? 0 : Int(random.next() % UInt64(max(count, 1)))
            cases.append(("decode.truncated", sample.data.prefix(length)))
        }
        for _ in 0..<options.corruptions where count > 0 {
            var bytes = [UInt8](sample.data)
            for _ in 0..<(1 + Int(random.next() % 8)) {
                // Damage past the signature, where it tests the decoder rather than the sniffer.
                let index = min(8 + Int(random.next() % UInt64(max(count - 8, 1))), count - 1)
                bytes[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            cases.append(("decode.corrupt", Data(bytes)))
        }
        let seed = "0x" + String(options.seed, radix: 16, uppercase: true)
        options.logger.info("decode.truncated and decode.corrupt on '\(sample.name)': \(cases.count) damaged copies (seed \(seed))")
        for (index, (contract, data)) in cases.enumerated() {
            options.logger.debug("\(contract) on '\(sample.name)': copy \(index + 1) of \(cases.count), \(data.count) bytes")
            let outcome = await TimeBound.run(options.timeLimit) { () -> [ImageDecodeWarning] in
                let image = try coder.decode(data, options: ImageDecodeOptions())
                // Touch every frame: lazy animations must fail cleanly too.
                for index in 0..<image.frameCount { _ = try image.frame(at: index) }
                return image.metadata.warnings
            }
            switch outcome {
            case .returned(let warnings):
                // Warnings live as long as the cached image: a few lines, not one per damaged row.
                log.expect(
                    warnings.count <= ImageDecodeWarning.maxPerImage && warnings.allSatisfy { !$0.message.isEmpty },
                    "decode.warnings", "\(sample.name) (\(data.count) bytes)",
                    "the damaged copy decoded with \(warnings.count) warnings; at most \(ImageDecodeWarning.maxPerImage) are allowed, each with a message: \(warnings.map(\.message))")
            case .threw(let error) where error is ImagePipeError: break
            case .threw(let error):
                log.fail(
                    contract, "\(sample.name) (\(data.count) bytes)",
                    "the damaged copy threw \(type(of: error)); a coder must throw an ImagePipeError (badImageData, say): \(error)")
            case .timedOut:
                log.fail(contract, "\(sample.name) (\(data.count) bytes)", "decoding the damaged copy did not return within \(options.timeLimit) (a hang)")
            }
        }
    }

    static func checkLimits(_ coder: some ImageCoder, _ sample: CoderSample, _ options: Options, _ log: inout FailureLog) async {
        guard let pixels = sample.size.pixelCount, pixels > 1 else { return }
        let data = sample.data
        options.logger.debug("decode.limits on '\(sample.name)': maxPixels \(pixels - 1)")
        let outcome = await TimeBound.run(options.timeLimit) { try coder.decode(data, options: ImageDecodeOptions(maxPixels: pixels - 1)) }
        if case .threw(let error) = outcome, case ImagePipeError.limitExceeded(.pixels, _, _) = error { return }
        let seen = if case .returned(let image) = outcome { "it decoded a \(image.pixelSize) image" } else { outcome.description }
        log.fail(
            "decode.limits", sample.name,
            "with maxPixels \(pixels - 1) the \(sample.size) canvas must fail with limitExceeded(.pixels) before decoding; \(seen)")
    }

    static func checkThumbnail(_ coder: some ImageCoder, _ sample: CoderSample, _ options: Options, _ log: inout FailureLog) async {
        let box = ImageSize(width: max(sample.size.width / 2, 1), height: max(sample.size.height / 3, 1))
        for preserve in [true, false] {
            let data = sample.data
            let decodeOptions = ImageDecodeOptions(thumbnailPixelSize: box, preserveAspectRatio: preserve)
            let outcome = await TimeBound.run(options.timeLimit) { try coder.decode(data, options: decodeOptions) }
            guard case .returned(let image) = outcome else {
                log.fail("decode.thumbnail", sample.name, "decoding a thumbnail into \(box) (preserveAspectRatio \(preserve)) failed: \(outcome)")
                continue
            }
            let expected = sample.size.fitted(into: box, preserveAspectRatio: preserve)
            let size = image.pixelSize
            log.expect(
                abs(size.width - expected.width) <= 1 && abs(size.height - expected.height) <= 1, "decode.thumbnail", sample.name,
                "thumbnail into \(box) (preserveAspectRatio \(preserve)) is \(size), expected \(expected) ±1")
            log.expect(
                image.frameCount == sample.frameCount, "decode.thumbnail", sample.name,
                "the thumbnail has \(image.frameCount) frames, the sample \(sample.frameCount); a thumbnail must keep every frame")
        }
    }

    static func checkFirstFrameOnly(_ coder: some ImageCoder, _ sample: CoderSample, _ options: Options, _ log: inout FailureLog) async {
        let data = sample.data
        let outcome = await TimeBound.run(options.timeLimit) { try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true)) }
        guard case .returned(let image) = outcome else {
            log.fail("decode.firstFrameOnly", sample.name, "decoding with firstFrameOnly failed: \(outcome)")
            return
        }
        log.expect(
            image.frameCount == 1 && !image.isAnimated, "decode.firstFrameOnly", sample.name,
            "decoding with firstFrameOnly gave \(image.frameCount) frames\(image.isAnimated ? " (animated)" : ""); expected one still frame")
    }

    static func checkRoundTrip(_ coder: some ImageCoder, _ sample: CoderSample, _ image: Image, _ options: Options, _ log: inout FailureLog) async {
        guard coder.canEncode(to: sample.format) else { return }
        for quality in options.qualities {
            let outcome = await TimeBound.run(options.timeLimit) { () -> Image in
                let encodeOptions = ImageEncodeOptions(quality: quality)
                let data =
                    image.isAnimated
                    ? try coder.encode(frames: try image.frames(), loopCount: image.loopCount, as: sample.format, options: encodeOptions)
                    : try coder.encode(image, as: sample.format, options: encodeOptions)
                return try coder.decode(data, options: ImageDecodeOptions())
            }
            guard case .returned(let decoded) = outcome else {
                log.fail("encode.roundTrip", sample.name, "encode → decode at quality \(quality) failed: \(outcome)")
                continue
            }
            log.expect(decoded.pixelSize == image.pixelSize, "encode.roundTrip", sample.name, "quality \(quality): size \(decoded.pixelSize), expected \(image.pixelSize)")
            log.expect(decoded.frameCount == image.frameCount, "encode.roundTrip", sample.name, "quality \(quality): \(decoded.frameCount) frames, expected \(image.frameCount)")
            if image.isAnimated {
                log.expect(decoded.loopCount == image.loopCount, "encode.roundTrip", sample.name, "quality \(quality): loop count \(decoded.loopCount), expected \(image.loopCount)")
            }
        }
    }
}

extension CoderConformance {
    static func checkColorProfile(_ coder: some ImageCoder, _ sample: CoderSample, _ image: Image, _ options: Options, _ log: inout FailureLog) async {
        guard let profile = options.colorProfile, coder.canEncode(to: sample.format), !image.isAnimated,
            ImageColorProfile.icc(profile).iccData(describing: image.pixelFormat) != nil
        else { return }
        var tagged = image
        tagged.metadata.colorProfile = .icc(profile)
        let outcome = await TimeBound.run(options.timeLimit) { [tagged] () -> Image in
            let data = try coder.encode(tagged, as: sample.format, options: ImageEncodeOptions())
            return try coder.decode(data, options: ImageDecodeOptions(colorHandling: .keepSourceProfile))
        }
        guard case .returned(let decoded) = outcome else {
            log.fail("encode.colorProfile", sample.name, "encode → decode of the tagged image failed: \(outcome)")
            return
        }
        let kept = decoded.metadata.colorProfile?.iccData
        log.expect(
            kept == profile, "encode.colorProfile", sample.name,
            "the \(profile.count)-byte profile came back as \(kept.map { "\($0.count) other bytes" } ?? "none")")
    }
}

/// A small seeded generator, so damage is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
