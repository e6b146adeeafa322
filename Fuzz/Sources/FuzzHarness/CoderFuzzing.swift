import CodersPNG
import Foundation
import PipelineCore

/// One input through one of the ways the pipeline reads a format: a full decode, a thumbnail decode,
/// an incremental decode fed in chunks of varying size, or random access to an animation's frames.
/// Each must end in an image within its limits or an `ImagePipeError`; anything else is a
/// violation (and a trap, a leak, a hang or runaway memory is a finding of the fuzzer itself).
enum CoderFuzzing {
    /// The limits a target decodes under. Lower than the server defaults on purpose: one
    /// execution stays cheap, and an input that still costs more than the fuzzer's 2 s / 512 MiB
    /// bounds shows work the limits do not bound. Past a few hundred pixels a side, more pixels
    /// repeat the same code at ASan's cost (the harness's own checks, orientation and resampling
    /// are per pixel), and the limits' errors are reached all the same.
    struct Limits: Sendable {
        /// Pixels of one frame's canvas.
        var maxPixels: Int
        /// Pixels one animation operation may touch over all its frames.
        var maxAnimationPixels: Int

        /// 1 MP per frame, as libjpeg-turbo's and libwebp's own fuzzers allow, 4 MP per animation.
        static let standard = Limits(maxPixels: 1 << 20, maxAnimationPixels: 1 << 22)
        /// A GIF's work is its canvas times the frames drawn on it, whatever its length: a 200-byte
        /// file declares a 1 MP canvas, and a thumbnail decode composites and resamples every frame
        /// at canvas size (70 % of the target's time at the standard limits). 512x512 per frame and
        /// 1 MP per animation keep the compositor's clipping, disposal and the limits' errors in reach.
        static let gif = Limits(maxPixels: 1 << 18, maxAnimationPixels: 1 << 20)
        /// An SVG's drawing time grows with its canvas and its elements, and any document may
        /// declare a large canvas: 256 x 256 (with at most 2,000 elements) keeps one execution
        /// well under the fuzzer's time bound.
        static let svg = Limits(maxPixels: 1 << 16, maxAnimationPixels: 1 << 16)
    }

    static let maxFrames = 256

    /// The coders an icon's PNG entries are decoded with.
    static let pngOnly: ImageCodersManager = {
        let coders = ImageCodersManager()
        coders.add(PNGCoder())
        return coders
    }()
    /// Bytes fed to an incremental decoder are split into at most this many updates.
    static let maxUpdates = 32
    /// Random frame indices asked for per animation (some outside the animation on purpose).
    static let framesPerAnimation = 4

    /// The way an input is read. Chosen by the input's length, so most mutations of an input (those
    /// that change bytes, not the length) keep its way and build on the coverage it found.
    enum Mode: CaseIterable {
        case full, thumbnail, incremental, animation
    }

    static func run(_ bytes: Data, coder: any ImageCoder, limits: Limits = .standard) throws(FuzzViolation) {
        var random = FuzzRandom(bytes)
        // Sometimes a slice that does not start at index 0, as `Data` from a larger buffer is.
        let data = random.oneIn(4) ? (Data([0]) + bytes).dropFirst() : bytes
        let base = ImageDecodeOptions(maxPixels: limits.maxPixels, maxFrames: maxFrames, maxAnimationPixels: limits.maxAnimationPixels)
        _ = coder.canDecode(data)
        switch Mode.allCases[bytes.count % Mode.allCases.count] {
        case .full:
            _ = try decode(data, coder: coder, options: base, random: &random)
        case .thumbnail:
            _ = try decode(data, coder: coder, options: thumbnailOptions(base, random: &random), random: &random)
        case .incremental:
            if let progressive = coder as? any ProgressiveImageCoder {
                try decodeIncrementally(data, coder: progressive, options: base, random: &random)
            } else {
                _ = try decode(data, coder: coder, options: base, random: &random)
            }
        case .animation:
            let options = random.bool() ? base : thumbnailOptions(base, random: &random)
            if let animated = coder as? any AnimatedImageCoder {
                try readAnimation(data, coder: animated, options: options, random: &random)
            } else {
                _ = try decode(data, coder: coder, options: options, random: &random)
            }
        }
    }

    static func thumbnailOptions(_ base: ImageDecodeOptions, random: inout FuzzRandom) -> ImageDecodeOptions {
        var options = base
        options.thumbnailPixelSize = ImageSize(width: random.int(in: 1...320), height: random.int(in: 1...320))
        options.preserveAspectRatio = !random.oneIn(4)
        options.firstFrameOnly = random.oneIn(4)
        if random.oneIn(4) { options.scaleDownLimitBytes = random.int(in: 1...(4 << 20)) }
        return options
    }

    /// The decoded image, or nil when the coder refused the bytes with a typed error.
    static func decode(_ data: Data, coder: any ImageCoder, options: ImageDecodeOptions, random: inout FuzzRandom) throws(FuzzViolation) -> Image? {
        let image: Image
        do {
            image = try coder.decode(data, options: options)
        } catch {
            try expectTyped(error, "decode")
            return nil
        }
        try check(image, options: options, what: "decode")
        try readFrames(of: image, random: &random)
        // EXIF with its GPS removed must have none left: removing again changes nothing.
        if let exif = image.metadata.exif, let kept = ExifEditor.removingGPS(exif), ExifEditor.removingGPS(kept) != kept {
            throw FuzzViolation("EXIF still has a GPS IFD after removing it")
        }
        if image.orientation != .up {
            do {
                let upright = try image.applyingOrientation()
                guard upright.pixelSize == image.displaySize else {
                    throw FuzzViolation("upright image is \(upright.pixelSize), display size \(image.displaySize)")
                }
            } catch let violation as FuzzViolation {
                throw violation
            } catch {
                try expectTyped(error, "applyingOrientation")
            }
        }
        return image
    }

    /// Feeds growing prefixes, as a download does, asking for the partial image between some of
    /// them; the complete bytes must then give exactly what `decode` gave.
    static func decodeIncrementally(
        _ data: Data, coder: any ProgressiveImageCoder, options: ImageDecodeOptions, random: inout FuzzRandom
    ) throws(FuzzViolation) {
        _ = coder.canDecodeIncrementally(data)
        let decoder = coder.makeIncrementalDecoder(options: options)
        var end = 0
        var updates = 0
        while end < data.count {
            let remaining = data.count - end
            let chunk = chunkSize(random: &random)
            let floor = (remaining + (maxUpdates - updates) - 1) / max(maxUpdates - updates, 1)
            end += min(remaining, max(chunk, floor))
            updates += 1
            decoder.update(data.prefix(end), isComplete: false)
            if random.oneIn(3) || end == data.count {
                do {
                    if let partial = try decoder.currentImage() {
                        try check(partial, options: options, what: "incremental decode")
                    }
                } catch let violation as FuzzViolation {
                    throw violation
                } catch {
                    try expectTyped(error, "incremental currentImage")
                }
            }
        }
        guard random.oneIn(4) else { return }
        let full = try decode(data, coder: coder, options: options, random: &random)
        decoder.update(data, isComplete: true)
        let final: Image?
        do {
            final = try decoder.currentImage()
        } catch {
            try expectTyped(error, "incremental final image")
            final = nil
        }
        if let final { try check(final, options: options, what: "incremental final image") }
        switch (final, full) {
        case (nil, nil):
            break
        case (let final?, let full?):
            guard final.firstFrame == full.firstFrame else {
                throw FuzzViolation("incremental final image differs from decode: \(final.pixelSize) vs \(full.pixelSize)")
            }
        default:
            throw FuzzViolation("incremental final image \(final == nil ? "failed" : "succeeded") where decode \(full == nil ? "failed" : "succeeded")")
        }
    }

    /// Mostly small chunks (a slow network), sometimes large ones.
    static func chunkSize(random: inout FuzzRandom) -> Int {
        switch random.int(in: 0...7) {
        case 0...3: random.int(in: 1...16)
        case 4...5: random.int(in: 17...512)
        default: random.int(in: 513...65536)
        }
    }

    static func readAnimation(_ data: Data, coder: any AnimatedImageCoder, options: ImageDecodeOptions, random: inout FuzzRandom) throws(FuzzViolation) {
        let provider: any AnimatedImageProvider
        do {
            guard let made = try coder.animatedImageProvider(for: data, options: options) else { return }
            provider = made
        } catch {
            try expectTyped(error, "animatedImageProvider")
            return
        }
        let count = provider.frameCount
        guard count >= 0, count <= options.maxFrames else {
            throw FuzzViolation("provider has \(count) frames, limit \(options.maxFrames)")
        }
        try checkPixels(provider.canvasSize, options: options, what: "provider canvas")
        guard provider.loopCount >= 0 else { throw FuzzViolation("provider loop count \(provider.loopCount)") }
        for index in 0..<count {
            let duration = provider.duration(at: index)
            guard duration.isFinite, duration >= 0 else { throw FuzzViolation("frame \(index) duration \(duration)") }
        }
        for _ in 0..<framesPerAnimation {
            let index = random.int(in: -1...count)
            let frame: PixelBuffer
            do {
                frame = try provider.frame(at: index)
            } catch {
                try expectTyped(error, "provider.frame(at: \(index))")
                continue
            }
            guard index >= 0, index < count else {
                throw FuzzViolation("provider gave frame \(index) of \(count)")
            }
            guard frame.size == provider.canvasSize, frame.format == provider.pixelFormat else {
                throw FuzzViolation("frame \(index) is \(frame.size) \(frame.format), canvas \(provider.canvasSize) \(provider.pixelFormat)")
            }
            try checkBuffer(frame, what: "provider frame \(index)")
        }
    }

    /// Random frames of a decoded image, through `Image.frame(at:)` (the animation's frame cache).
    static func readFrames(of image: Image, random: inout FuzzRandom) throws(FuzzViolation) {
        guard let animation = image.animation else { return }
        for _ in 0..<framesPerAnimation {
            let index = random.int(in: -1...animation.frameCount)
            do {
                let frame = try image.frame(at: index)
                guard frame.size == image.pixelSize else {
                    throw FuzzViolation("frame \(index) is \(frame.size), canvas \(image.pixelSize)")
                }
                try checkBuffer(frame, what: "frame \(index)")
            } catch let violation as FuzzViolation {
                throw violation
            } catch {
                try expectTyped(error, "frame(at: \(index))")
            }
        }
    }

    static func check(_ image: Image, options: ImageDecodeOptions, what: String) throws(FuzzViolation) {
        try checkPixels(image.pixelSize, options: options, what: what)
        try checkBuffer(image.firstFrame, what: what)
        guard image.frameCount >= 1, image.frameCount <= max(options.maxFrames, 1) else {
            throw FuzzViolation("\(what): \(image.frameCount) frames, limit \(options.maxFrames)")
        }
        if let box = options.thumbnailPixelSize, options.scaleDownLimitBytes == nil, !image.metadata.isIncremental {
            let size = image.pixelSize
            let fits = size.width <= box.width && size.height <= box.height
            let fitsUpright = size.height <= box.width && size.width <= box.height
            guard fits || fitsUpright else {
                throw FuzzViolation("\(what): thumbnail \(size) does not fit the box \(box)")
            }
        }
    }

    static func checkPixels(_ size: ImageSize, options: ImageDecodeOptions, what: String) throws(FuzzViolation) {
        guard !size.isEmpty, let pixels = size.pixelCount, pixels <= options.maxPixels else {
            throw FuzzViolation("\(what): size \(size) breaks the pixel limit \(options.maxPixels)")
        }
    }

    static func checkBuffer(_ buffer: PixelBuffer, what: String) throws(FuzzViolation) {
        guard buffer.bytes.count == buffer.width * buffer.height * buffer.format.bytesPerPixel else {
            throw FuzzViolation("\(what): \(buffer.bytes.count) bytes for \(buffer.size) \(buffer.format)")
        }
    }

    static func expectTyped(_ error: any Error, _ what: String) throws(FuzzViolation) {
        guard let typed = error as? ImagePipeError else {
            throw FuzzViolation("\(what) threw \(type(of: error)), not ImagePipeError: \(error)")
        }
        _ = typed.description
    }
}
