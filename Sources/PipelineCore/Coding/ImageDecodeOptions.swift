import Foundation

/// How to decode: SDWebImage's decode coder options, plus the limits a server needs.
///
/// Hashable on purpose: two requests with equal decode options can share one decode.
public struct ImageDecodeOptions: Hashable, Sendable {
    /// Decode only frame 0 of an animation, giving a still image.
    public var firstFrameOnly: Bool
    /// Decode every frame of an animation right after the decode and keep them (SDWebImage's
    /// `preloadAllFrames`): playback decodes nothing, and the image costs every frame's pixels.
    var preloadAllFrames: Bool
    /// Point scale recorded on the image (pixels per point); values below 1 are treated as 1.
    public var scaleFactor: Double
    /// Decode no larger than this box (aspect kept unless `preserveAspectRatio` is false). Coders
    /// that can decode at reduced size (JPEG DCT scaling, WebP scaled decode, PNG row subsampling)
    /// do so here, and never scale up.
    public var thumbnailPixelSize: ImageSize?
    /// Fit the thumbnail inside the box (true) or stretch to it (false).
    public var preserveAspectRatio: Bool
    /// Byte budget for the decoded pixels of all frames (4 bytes a pixel assumed). Wins over
    /// `thumbnailPixelSize`: the image is fitted, aspect kept, into the largest size within it.
    public var scaleDownLimitBytes: Int?
    /// Refuse images whose canvas has more pixels than this, before allocating anything.
    public var maxPixels: Int
    /// Refuse animations with more frames than this.
    public var maxFrames: Int
    /// Refuse animations whose frames add up to more canvas pixels than this (frame count times the
    /// canvas's pixels, from the header), before any frame is composited. Thumbnailing, transforming
    /// and re-encoding an animation composite every frame at full canvas size, so this bounds their
    /// work; a still image or a first-frame-only decode is one frame, which `maxPixels` bounds.
    public var maxAnimationPixels: Int
    /// When over 0, an animation's canvas is held to this instead, frame by frame, and its frames
    /// are not summed (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`).
    package var maxAnimationFramePixels = 0
    /// Bytes a decoder may hold besides the pixels it hands out: libjpeg's coefficient buffers (a
    /// progressive JPEG keeps every block of every component), libpng's chunk buffers, frame
    /// buffers of animated formats. Coders estimate their working set from the header and refuse
    /// a file over this before allocating (`limitExceeded(.decoderMemory)`).
    public var maxDecoderMemory: Int
    /// Refuse progressive JPEGs with more scans than this (djpeg's `-maxscans`): each scan walks
    /// every block again, so a small file repeating one scan costs minutes of CPU
    /// (`limitExceeded(.progressiveScans)`).
    public var maxProgressiveScans: Int
    /// Time one decode may take, on the clock, counted from when the decoder starts (not while it
    /// waits for a core; each frame of an animation counts on its own). Checked between rows, scans
    /// and frames (`limitExceeded(.decodeTime)`, in milliseconds); nil for none. A duration rather
    /// than an instant, so equal options stay equal and can share one decode.
    public var maxDecodeTime: Duration?
    /// A file extension hint, without the dot, for container formats that need one.
    package var fileExtensionHint: String?
    /// Options of a particular coder.
    public var extras: ImageCodingExtras
    /// Convert to sRGB (the default) or keep the source profile; see `ImageColorHandling`.
    public var colorHandling: ImageColorHandling
    /// The largest embedded colour profile a coder reads. A larger one is dropped with a
    /// `.colorProfileIgnored` warning naming this setting, and the pixels stay as stored.
    public var maxColorProfileBytes: Int
    /// Strip EXIF and XMP (the default) or keep them; see `ImageMetadataHandling`.
    public var metadataHandling: ImageMetadataHandling
    /// The largest EXIF block or XMP packet a coder keeps on the image. A larger one is dropped
    /// with a `.metadataIgnored` warning naming this setting; orientation is still read from it.
    public var maxMetadataBytes: Int

    /// 100 megapixels: a 10,000 x 10,000 photo decodes; a 65,535 x 65,535 header does not.
    @usableFromInline package static let defaultMaxPixels = 100_000_000
    /// Enough for any real animation; a hostile file with millions of empty frames stops here.
    @usableFromInline package static let defaultMaxFrames = 10_000
    /// 50 megapixels over all frames, imgproxy's figure (it sums frames against its 50 MP source
    /// limit): 1,000 frames of 220 x 220, or 24 of 1080p. Re-encoding an animation whose every
    /// frame changes costs up to about 100 ns and 27 bytes per canvas pixel from GIF to WebP (37
    /// re-encoding a translucent WebP with a transform), measured on 2 cores: 50 MP takes about 5 s,
    /// and the worst split, two frames of 25 MP, peaks near 700 MB (920 MB), under the 1 GiB one
    /// conversion may use.
    @usableFromInline package static let defaultMaxAnimationPixels = 50_000_000
    /// 4 MiB: real RGB and gray profiles are 0.5-60 KB, CMYK ones up to about 2 MB.
    @usableFromInline static let defaultMaxColorProfileBytes = 4 << 20
    /// 1 MiB: JPEG holds EXIF and standard XMP in 64 KB segments; camera EXIF with a preview
    /// image and rich XMP stay well under this.
    @usableFromInline static let defaultMaxMetadataBytes = 1 << 20
    /// 256 MiB: the coefficients of a progressive 4:2:0 photo up to about 89 megapixels (3 bytes a
    /// pixel), a 4:4:4 one up to 44, CMYK up to 33. Two such decodes at once leave a 4 GB server
    /// room for their pixels and everything else.
    @usableFromInline package static let defaultMaxDecoderMemory = 256 << 20
    /// Real progressive JPEGs have 2-12 scans (libjpeg's own script writes 10); TurboJPEG's
    /// benchmark refuses more than 500. 100 leaves ample room while capping a 100-megapixel file's
    /// refinement work at a few seconds.
    @usableFromInline package static let defaultMaxProgressiveScans = 100
    /// 8 seconds: a 100-megapixel PNG or progressive JPEG decodes in 1-3 s on one core of a small
    /// server, and a hostile file gives up its core within a 10 s request deadline (imgproxy's).
    @usableFromInline static let defaultMaxDecodeTime = Duration.seconds(8)

    public init(
        firstFrameOnly: Bool = false,
        scaleFactor: Double = 1,
        thumbnailPixelSize: ImageSize? = nil,
        preserveAspectRatio: Bool = true,
        scaleDownLimitBytes: Int? = nil,
        maxPixels: Int = ImageDecodeOptions.defaultMaxPixels,
        maxFrames: Int = ImageDecodeOptions.defaultMaxFrames,
        maxAnimationPixels: Int = ImageDecodeOptions.defaultMaxAnimationPixels,
        maxDecoderMemory: Int = ImageDecodeOptions.defaultMaxDecoderMemory,
        maxProgressiveScans: Int = ImageDecodeOptions.defaultMaxProgressiveScans,
        maxDecodeTime: Duration? = ImageDecodeOptions.defaultMaxDecodeTime,
        fileExtensionHint: String? = nil,
        extras: ImageCodingExtras = ImageCodingExtras(),
        colorHandling: ImageColorHandling = .default,
        maxColorProfileBytes: Int = ImageDecodeOptions.defaultMaxColorProfileBytes,
        metadataHandling: ImageMetadataHandling = .default,
        maxMetadataBytes: Int = ImageDecodeOptions.defaultMaxMetadataBytes,
        preloadAllFrames: Bool = false
    ) {
        self.preloadAllFrames = preloadAllFrames
        self.firstFrameOnly = firstFrameOnly
        self.scaleFactor = scaleFactor
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.maxAnimationPixels = maxAnimationPixels
        self.maxDecoderMemory = maxDecoderMemory
        self.maxProgressiveScans = maxProgressiveScans
        self.maxDecodeTime = maxDecodeTime
        self.fileExtensionHint = fileExtensionHint
        self.extras = extras
        self.colorHandling = colorHandling
        self.maxColorProfileBytes = maxColorProfileBytes
        self.metadataHandling = metadataHandling
        self.maxMetadataBytes = maxMetadataBytes
    }

    /// `bytes` when within `maxMetadataBytes`, else nil plus the warning that says so (`format`
    /// and `kind`, "EXIF" or "XMP", start its message). For coders, as they read metadata.
    public func acceptingMetadata(_ bytes: Data?, kind: String, format: String) -> (Data?, ImageDecodeWarning?) {
        guard let bytes, let warning = metadataWarning(bytes: bytes.count, kind: kind, format: format) else { return (bytes, nil) }
        return (nil, warning)
    }

    /// The warning for `kind` metadata of `bytes` over `maxMetadataBytes`, else nil. For coders
    /// that can tell the size before copying the metadata.
    public func metadataWarning(bytes: Int, kind: String, format: String) -> ImageDecodeWarning? {
        guard bytes > maxMetadataBytes else { return nil }
        let limit = ImagePipeError.Limit.metadataBytes
        return ImageDecodeWarning(
            .metadataIgnored,
            message:
                "\(format): \(kind) of \(bytes) bytes ignored, over \(limit.setting ?? limit.name) (\(maxMetadataBytes))")
    }

    /// `profile` when it is within `maxColorProfileBytes`, else nil plus the warning that says so
    /// (`format` starts its message, e.g. "JPEG"). For coders, as they read a profile.
    public func acceptingColorProfile(_ profile: ImageColorProfile?, format: String) -> (ImageColorProfile?, ImageDecodeWarning?) {
        guard let bytes = profile?.iccData?.count, let warning = colorProfileWarning(bytes: bytes, format: format) else { return (profile, nil) }
        return (nil, warning)
    }

    /// The warning for an ICC profile of `bytes` over `maxColorProfileBytes`, else nil. For coders
    /// that can tell the size before copying the profile.
    public func colorProfileWarning(bytes: Int, format: String) -> ImageDecodeWarning? {
        guard bytes > maxColorProfileBytes else { return nil }
        let limit = ImagePipeError.Limit.colorProfileBytes
        return ImageDecodeWarning(
            .colorProfileIgnored,
            message:
                "\(format): ICC profile of \(bytes) bytes ignored, over \(limit.setting ?? limit.name) (\(maxColorProfileBytes))")
    }

    /// True when the image this produces may be smaller than the file's: it is then a thumbnail,
    /// never stored under the full-size key.
    package var requestsThumbnail: Bool {
        (thumbnailPixelSize.map { !$0.isEmpty } ?? false) || scaleDownLimitBytes != nil
    }

    /// These options with `maxPixels` lowered to `limit` when that is smaller: a coder's own limit
    /// applies on top of the request's, never above it.
    package func cappingPixels(at limit: Int) -> ImageDecodeOptions {
        var capped = self
        capped.maxPixels = min(maxPixels, limit)
        return capped
    }

    /// Throws `limitExceeded(.pixels)` when a canvas of this size may not be decoded. Coders call it
    /// with the header's size before allocating.
    public func checkPixelLimit(_ size: ImageSize) throws {
        guard let pixels = size.pixelCount else {
            throw ImagePipeError.limitExceeded(.pixels, value: .max, maximum: maxPixels)
        }
        if pixels > maxPixels {
            throw ImagePipeError.limitExceeded(.pixels, value: pixels, maximum: maxPixels)
        }
    }

    /// Throws `limitExceeded(.frames)` when an animation has more frames than allowed.
    package func checkFrameLimit(_ count: Int) throws {
        if count > maxFrames {
            throw ImagePipeError.limitExceeded(.frames, value: count, maximum: maxFrames)
        }
    }

    /// Throws `limitExceeded(.animationPixels)` when `frameCount` frames of a `canvas`-sized
    /// animation add up to more pixels than allowed. Animated coders call it with the header's
    /// figures before compositing anything. A still image, or the first frame alone, is one frame:
    /// `maxPixels` bounds it, not this.
    public func checkAnimationPixels(frameCount frames: Int, canvas: ImageSize) throws {
        guard frames > 1, !firstFrameOnly else { return }
        if maxAnimationFramePixels > 0 {
            let pixels = canvas.pixelCount ?? .max
            if pixels > maxAnimationFramePixels {
                throw ImagePipeError.limitExceeded(.animationFramePixels, value: pixels, maximum: maxAnimationFramePixels)
            }
            return
        }
        guard let pixels = canvas.pixelCount else {
            throw ImagePipeError.limitExceeded(.animationPixels, value: .max, maximum: maxAnimationPixels)
        }
        let (total, overflow) = pixels.multipliedReportingOverflow(by: frames)
        if overflow { throw ImagePipeError.limitExceeded(.animationPixels, value: .max, maximum: maxAnimationPixels) }
        if total > maxAnimationPixels {
            throw ImagePipeError.limitExceeded(.animationPixels, value: total, maximum: maxAnimationPixels)
        }
    }

    /// Throws `limitExceeded(.decoderMemory)` when a decoder's working set, estimated from the
    /// header, is over `maxDecoderMemory`. Coders call it before allocating.
    public func checkDecoderMemory(_ bytes: Int) throws {
        if bytes > maxDecoderMemory {
            throw ImagePipeError.limitExceeded(.decoderMemory, value: bytes, maximum: maxDecoderMemory)
        }
    }

    /// Throws `limitExceeded(.progressiveScans)` once a decoder reaches a scan past the limit.
    package func checkProgressiveScans(_ scan: Int) throws {
        if scan > maxProgressiveScans {
            throw ImagePipeError.limitExceeded(.progressiveScans, value: scan, maximum: maxProgressiveScans)
        }
    }

    /// The size to decode a `source`-sized image (with `frameCount` frames) to, applying the byte
    /// budget first and the thumbnail box second, never scaling up. `source` when neither applies.
    public func targetSize(for source: ImageSize, frameCount: Int = 1) -> ImageSize {
        if let limit = scaleDownLimitBytes {
            let budget = ImageSizeMath.scaledDownSize(source, limitBytes: limit, frameCount: frameCount)
            return ImageSizeMath.scaledSize(source, toFit: budget, preserveAspectRatio: true, allowUpscaling: false)
        }
        if let box = thumbnailPixelSize, !box.isEmpty {
            return ImageSizeMath.scaledSize(source, toFit: box, preserveAspectRatio: preserveAspectRatio, allowUpscaling: false)
        }
        return source
    }
}
