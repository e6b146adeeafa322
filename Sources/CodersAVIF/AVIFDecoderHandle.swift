import CAVIF
import Foundation
import PipelineCore

/// One libavif decoder over a private copy of a file's bytes, parsed with the request's limits.
///
/// Ownership: libavif keeps pointers into the bytes it is given (the memory reader is persistent,
/// so samples are not copied), so this value owns both and `deinit` destroys the decoder before
/// freeing the bytes. `~Copyable`: it can be neither duplicated nor outlive its bytes; the
/// animation provider keeps it inside a `Mutex`, because an `avifDecoder` is not thread-safe.
struct AVIFDecoderHandle: ~Copyable {
    private let decoder: UnsafeMutablePointer<avifDecoder>
    private let bytes: UnsafeMutableRawBufferPointer
    /// The container's canvas (`ispe`, or the track header of a sequence): what libavif decodes.
    let size: ImageSize
    let frameCount: Int
    let hasAlpha: Bool
    /// What the colour image's `clap` asks for.
    let cleanAperture: AVIFCleanAperture.Outcome

    /// The rectangle decoded images are cropped to, nil for the whole canvas.
    var crop: AVIFCleanAperture? {
        guard case .crop(let rect) = cleanAperture else { return nil }
        return rect
    }

    /// The size of a decoded image: the clean aperture's, else the canvas.
    var displaySize: ImageSize { crop?.size ?? size }

    /// Parses the container: boxes, item properties, sample tables. No AV1 data is decoded and no
    /// plane is allocated yet. libavif's own limits (`imageSizeLimit`, which it also hands to the
    /// AV1 decoder, and `imageCountLimit`, checked before sample tables are read) are set from
    /// `options`, so a bomb stops inside libavif's parser; the error then names our setting.
    init(_ data: Data, options: ImageDecodeOptions) throws {
        guard !data.isEmpty else { throw ImagePipeError.badImageData(reason: "no bytes") }
        let limits = AVIFParseLimits(options)
        let (decoder, bytes) = try Self.parse(data, limits: limits)
        self.decoder = decoder
        self.bytes = bytes
        let image = decoder.pointee.image!.pointee
        size = ImageSize(width: Int(image.width), height: Int(image.height))
        frameCount = Int(decoder.pointee.imageCount)
        hasAlpha = decoder.pointee.alphaPresent != 0
        cleanAperture = AVIFCleanAperture.outcome(of: image)
    }

    deinit {
        ip_avifDecoderDestroy(decoder)
        bytes.deallocate()
    }

    /// Creates and parses a decoder over `data` as `AVIFFileRewrite` edits it for libavif 0.11;
    /// on failure under limits tighter than libavif's defaults, parses once more under the
    /// defaults to tell whether one of our limits refused the file and with what figure (parsing
    /// allocates no planes, and libavif deems its defaults safe).
    private static func parse(_ data: Data, limits: AVIFParseLimits) throws -> (UnsafeMutablePointer<avifDecoder>, UnsafeMutableRawBufferPointer) {
        try AVIFLibrary.open()
        let rewrite = try AVIFFileRewrite(data)
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: rewrite.count(for: data), alignment: 16)
        rewrite.write(data, into: bytes)
        guard let decoder = ip_avifDecoderCreate() else {
            bytes.deallocate()
            throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max)
        }
        let result = open(decoder, bytes, sizeLimit: limits.libavifSizeLimit, countLimit: limits.libavifCountLimit)
        if result == AVIF_RESULT_OK, let image = decoder.pointee.image?.pointee, image.width > 0, image.height > 0 {
            return (decoder, bytes)
        }
        if result == AVIF_RESULT_OK {
            ip_avifDecoderDestroy(decoder)
            bytes.deallocate()
            throw ImagePipeError.badImageData(reason: "AVIF image has no pixels")
        }
        let error = AVIFError.decoding(result, decoder.pointee.diag, stage: "container")
        // Past libavif's own size limit, only its message has the size.
        let claimed = AVIFError.claimedSize(in: decoder.pointee.diag)
        ip_avifDecoderDestroy(decoder)
        defer { bytes.deallocate() }
        if let claimed { try limits.options.checkPixelLimit(claimed) }
        if limits.isTighterThanLibavif, let probe = ip_avifDecoderCreate() {
            defer { ip_avifDecoderDestroy(probe) }
            if open(probe, bytes, sizeLimit: UInt32(AVIF_DEFAULT_IMAGE_SIZE_LIMIT), countLimit: AVIFParseLimits.libavifDefaultCountLimit) == AVIF_RESULT_OK {
                let image = probe.pointee.image!.pointee
                try limits.options.checkPixelLimit(ImageSize(width: Int(image.width), height: Int(image.height)))
                try limits.options.checkFrameLimit(Int(probe.pointee.imageCount))
            }
        }
        throw error
    }

    private static func open(
        _ decoder: UnsafeMutablePointer<avifDecoder>, _ bytes: UnsafeMutableRawBufferPointer,
        sizeLimit: UInt32, countLimit: UInt32
    ) -> avifResult {
        // One thread: the pipeline runs decodes in parallel itself.
        decoder.pointee.maxThreads = 1
        // Files from older encoders (libheif < 1.12 without `pixi`, cavif without alpha `ispe`)
        // break only strictness rules that browsers do not enforce; they decode as browsers show them.
        decoder.pointee.strictFlags = avifStrictFlags(AVIF_STRICT_DISABLED.rawValue)
        decoder.pointee.imageSizeLimit = sizeLimit
        decoder.pointee.imageCountLimit = countLimit
        let result = ip_avifDecoderSetIOMemory(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard result == AVIF_RESULT_OK else { return result }
        return ip_avifDecoderParse(decoder)
    }

    var image: avifImage { decoder.pointee.image.pointee }

    /// The frame decoded last, for libavif's conversions; valid until the next decode.
    var imagePointer: UnsafePointer<avifImage> { UnsafePointer(decoder.pointee.image) }

    /// True for an image sequence (`avis` tracks) rather than a still item.
    var isSequence: Bool { frameCount > 1 }

    /// Seconds frame `index` is shown, from the track's timescale (0 when the file gives none).
    func duration(at index: Int) -> Double {
        var timing = avifImageTiming()
        guard index >= 0, index < frameCount, ip_avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK,
            timing.timescale > 0
        else { return 0 }
        return Double(timing.durationInTimescales) / Double(timing.timescale)
    }

    /// Decodes frame `index` (libavif continues from the frame decoded last, or restarts at the
    /// nearest key frame) and checks that the AV1 frame has the container's size.
    func decodeFrame(_ index: Int) throws {
        guard index >= 0, index < frameCount else { throw ImagePipeError.frameOutOfRange(index: index, frameCount: frameCount) }
        let result = ip_avifDecoderNthImage(decoder, UInt32(index))
        guard result == AVIF_RESULT_OK else { throw AVIFError.decoding(result, decoder.pointee.diag, stage: "frame \(index)") }
        let decoded = ImageSize(width: Int(image.width), height: Int(image.height))
        guard decoded == size else {
            throw ImagePipeError.badImageData(reason: "AVIF frame \(index) is \(decoded), the container says \(size)")
        }
    }
}

/// The limits libavif's parser enforces for one request.
struct AVIFParseLimits {
    let options: ImageDecodeOptions
    let libavifSizeLimit: UInt32
    let libavifCountLimit: UInt32

    init(_ options: ImageDecodeOptions) {
        self.options = options
        // 0 means "no limit" to libavif for the count and is reserved for the size: never pass it.
        libavifSizeLimit = UInt32(clamping: max(min(options.maxPixels, Int(AVIF_DEFAULT_IMAGE_SIZE_LIMIT)), 1))
        libavifCountLimit = UInt32(clamping: max(min(options.maxFrames, Int(Self.libavifDefaultCountLimit)), 1))
    }

    /// AVIF_DEFAULT_IMAGE_COUNT_LIMIT, a macro Swift cannot import: 12 hours at 60 frames a second.
    static let libavifDefaultCountLimit: UInt32 = 12 * 3600 * 60

    var isTighterThanLibavif: Bool {
        libavifSizeLimit < UInt32(AVIF_DEFAULT_IMAGE_SIZE_LIMIT) || libavifCountLimit < AVIFParseLimits.libavifDefaultCountLimit
    }
}
