import Foundation

/// A decoded image: immutable and `Sendable`, so one instance can be cached and handed to many
/// tasks at once.
///
/// It holds either one frame of pixels or an animation whose frames an `AnimatedImageCoder`
/// decodes lazily. Pixels are stored as the file has them; `orientation` says how to show them
/// upright (`applyingOrientation()` does it).
public struct Image: Sendable {
    package enum Content: Sendable {
        case still(PixelBuffer)
        case animated(AnimatedImage)
    }

    /// Every copy of an image holds this one box, so it lives exactly as long as some copy does:
    /// `MemoryCache`'s weak table watches it to find images still in use after the cache let them go.
    package final class ContentBox: Sendable {
        let content: Content
        init(_ content: Content) { self.content = content }
    }

    /// All of an image, behind one reference. Copying an image (every memory-cache hit hands out a
    /// copy) is then one retain of this image's own object. Stored field by field, a copy would
    /// retain each field's objects, several of them shared by every image (a format's names and
    /// MIME types): reference counts that every core writes on every hit, one cache line bouncing
    /// between them. Immutable; a setter gives the image a new one over the same content box.
    final class Storage: Sendable {
        let box: ContentBox
        let format: ImageFormat
        let orientation: ImageOrientation
        let scale: Double
        let metadata: ImageMetadata

        package init(box: ContentBox, format: ImageFormat, orientation: ImageOrientation, scale: Double, metadata: ImageMetadata) {
            self.box = box
            self.format = format
            self.orientation = orientation
            self.scale = scale
            self.metadata = metadata
        }
    }

    private var storage: Storage

    package var box: ContentBox { storage.box }
    package var content: Content { storage.box.content }
    /// The format the image was decoded from (`.undefined` for images made in memory).
    public var format: ImageFormat {
        get { storage.format }
        set { replaceStorage(format: newValue) }
    }
    public var orientation: ImageOrientation {
        get { storage.orientation }
        set { replaceStorage(orientation: newValue) }
    }
    /// Pixels per point (SDWebImage's `scale`); 1 unless a decode option or key says otherwise.
    public var scale: Double {
        get { storage.scale }
        set { replaceStorage(scale: newValue) }
    }
    public var metadata: ImageMetadata {
        get { storage.metadata }
        set { replaceStorage(metadata: newValue) }
    }

    /// A new storage over the same content box, with the given fields changed.
    private mutating func replaceStorage(
        format: ImageFormat? = nil, orientation: ImageOrientation? = nil,
        scale: Double? = nil, metadata: ImageMetadata? = nil
    ) {
        storage = Storage(
            box: box, format: format ?? self.format, orientation: orientation ?? self.orientation,
            scale: scale ?? self.scale, metadata: metadata ?? self.metadata)
    }

    public init(
        _ buffer: PixelBuffer, format: ImageFormat = .undefined, orientation: ImageOrientation = .up,
        scale: Double = 1, metadata: ImageMetadata = ImageMetadata()
    ) {
        storage = Storage(box: ContentBox(.still(buffer)), format: format, orientation: orientation, scale: max(scale, 1), metadata: metadata)
    }

    public init(
        animation: AnimatedImage, orientation: ImageOrientation = .up,
        scale: Double = 1, metadata: ImageMetadata = ImageMetadata()
    ) {
        storage = Storage(
            box: ContentBox(.animated(animation)), format: animation.format, orientation: orientation,
            scale: max(scale, 1), metadata: metadata)
    }

    /// An image over an existing box: the memory cache's weak table rebuilds a stored image so.
    package init(box: ContentBox, format: ImageFormat, orientation: ImageOrientation, scale: Double, metadata: ImageMetadata) {
        storage = Storage(box: box, format: format, orientation: orientation, scale: scale, metadata: metadata)
    }

    /// The canvas size in stored pixels (before orientation).
    public var pixelSize: ImageSize {
        switch content {
        case .still(let buffer): buffer.size
        case .animated(let animation): animation.canvasSize
        }
    }

    /// The size shown upright, once `orientation` is applied.
    public var displaySize: ImageSize { orientation.displaySize(for: pixelSize) }

    public var pixelFormat: PixelFormat {
        switch content {
        case .still(let buffer): buffer.format
        case .animated(let animation): animation.pixelFormat
        }
    }

    public var hasAlpha: Bool { pixelFormat.hasAlpha }

    package var isAnimated: Bool {
        if case .animated = content { return true }
        return false
    }

    public var animation: AnimatedImage? {
        if case .animated(let animation) = content { return animation }
        return nil
    }

    public var frameCount: Int { animation?.frameCount ?? 1 }

    /// Times to play; 0 means forever. 0 for still images, as SDWebImage reports.
    public var loopCount: Int { animation?.loopCount ?? 0 }

    /// The still image's pixels, or the animation's first frame.
    public var firstFrame: PixelBuffer {
        switch content {
        case .still(let buffer): buffer
        case .animated(let animation): animation.posterFrame
        }
    }

    /// Frame `index`, composited onto the canvas. For still images only index 0 exists.
    public func frame(at index: Int) throws -> PixelBuffer {
        switch content {
        case .still(let buffer):
            guard index == 0 else { throw ImagePipeError.frameOutOfRange(index: index, frameCount: 1) }
            return buffer
        case .animated(let animation):
            return try animation.frame(at: index)
        }
    }

    /// Seconds frame `index` is shown (0 for still images).
    public func duration(at index: Int) -> Double { animation?.duration(at: index) ?? 0 }

    /// Bytes of decoded pixels this image holds right now: its buffer, or an animation's frames in
    /// memory (not all of its frames). The cost unit of the memory cache.
    package var memoryCost: Int {
        switch content {
        case .still(let buffer): buffer.memoryCost
        case .animated(let animation): animation.memoryCost
        }
    }

    /// True when decoded at a reduced size (a thumbnail box or byte budget was asked for).
    package var isThumbnail: Bool { metadata.decodeOptions?.requestsThumbnail ?? false }

    /// This image with its pixels turned upright and orientation `.up`. Animations are turned frame by
    /// frame lazily; only their first frame is turned here.
    public func applyingOrientation() throws -> Image {
        guard orientation != .up else { return self }
        var copy: Image
        switch content {
        case .still(let buffer):
            copy = Image(buffer.applying(orientation), format: format, scale: scale, metadata: metadata)
        case .animated(let animation):
            copy = Image(animation: try animation.mapped { [orientation] in $0.applying(orientation) }, scale: scale, metadata: metadata)
        }
        copy.format = format
        copy.metadata.exif = metadata.exif.map(ExifEditor.settingOrientationUp)
        return copy
    }

    /// A still image of the first frame (SDWebImage's first-frame-only downgrade of animated hits).
    package func firstFrameOnly() -> Image {
        guard isAnimated else { return self }
        return Image(firstFrame, format: format, orientation: orientation, scale: scale, metadata: metadata)
    }

    /// A copy with changed metadata.
    package func with(metadata change: (inout ImageMetadata) -> Void) -> Image {
        var copy = self
        change(&copy.metadata)
        return copy
    }
}

/// What SDWebImage keeps on `UIImage+Metadata`: how an image came to be.
public struct ImageMetadata: Hashable, Sendable {
    /// A transformer made it.
    package var isTransformed: Bool
    /// A partial image from a progressive load; never cached.
    public var isIncremental: Bool
    /// The options it was decoded with; `isThumbnail` is derived from them.
    package var decodeOptions: ImageDecodeOptions?
    /// What the decoder recovered from (at most `ImageDecodeWarning.maxPerImage`); empty for a
    /// clean decode. Kept by every transform, since the pixels still come from that decode.
    public var warnings: [ImageDecodeWarning]
    /// How the pixels are meant to be read as colours, as the file said (nil: it said nothing,
    /// read as sRGB); `.sRGB` once the decode step has converted them. Kept by every transform.
    public var colorProfile: ImageColorProfile?
    /// The file's EXIF as a TIFF structure (without JPEG's `Exif\0\0`), as decoded; after the
    /// decode step only when `ImageMetadataHandling.keep` asked for it, with GPS removed. Its
    /// orientation is reset to 1 wherever the pixels are turned upright. Encoders write it.
    public var exif: Data?
    /// The file's XMP packet (UTF-8 XML), as decoded; after the decode step only when kept.
    public var xmp: Data?
    /// True when the decode step removed EXIF, XMP or their GPS data by policy, converted the pixels
    /// from the file's colour profile, or the file holds metadata its coder did not hand over
    /// (`hasUnreadMetadata`) and the policy keeps less than everything: the file's bytes then carry
    /// metadata this image does not, so they must not be served as its encoding
    /// (`Image.isRepresented(by:as:)` decides).
    public var removedMetadata: Bool
    /// Set by coders: the file holds metadata not in `exif`, `xmp` or `colorProfile`, either blocks
    /// the coder does not read (JPEG IPTC, comments, a second EXIF segment, extended XMP; PNG text
    /// chunks; unknown WebP chunks; GIF comments) or a block it left out for its size (over
    /// `ImageDecodeOptions.maxMetadataBytes`). A flag, not a warning, so the warnings cap
    /// (`ImageDecodeWarning.maxPerImage`) can never drop it.
    public var hasUnreadMetadata: Bool
    /// Set by coders: the colour model the file stores its samples in, as its header says, before
    /// the decode converted them to the pixel format (a CMYK JPEG decodes to `rgb8`): `"gray"`,
    /// `"rgb"`, `"ycbcr"`, `"cmyk"`, `"ycck"`, `"palette"`, or a name a plugin gives its format's
    /// own; nil when the coder does not say. Kept by every transform.
    public var colorModel: String?

    public init(
        isTransformed: Bool = false, isIncremental: Bool = false, decodeOptions: ImageDecodeOptions? = nil,
        warnings: [ImageDecodeWarning] = [], colorProfile: ImageColorProfile? = nil,
        exif: Data? = nil, xmp: Data? = nil, hasUnreadMetadata: Bool = false, colorModel: String? = nil
    ) {
        self.isTransformed = isTransformed
        self.isIncremental = isIncremental
        self.decodeOptions = decodeOptions
        self.warnings = Array(warnings.prefix(ImageDecodeWarning.maxPerImage))
        self.colorProfile = colorProfile
        self.exif = exif
        self.xmp = xmp
        self.removedMetadata = false
        self.hasUnreadMetadata = hasUnreadMetadata
        self.colorModel = colorModel
    }

    /// Appends `warning` unless the image already holds `ImageDecodeWarning.maxPerImage`.
    package mutating func addWarning(_ warning: ImageDecodeWarning?) {
        guard let warning, warnings.count < ImageDecodeWarning.maxPerImage else { return }
        warnings.append(warning)
    }
}

/// A frame to encode: pixels and how long they are shown.
public struct ImageFrame: Sendable {
    public var buffer: PixelBuffer
    /// Seconds.
    public var duration: Double

    public init(_ buffer: PixelBuffer, duration: Double) {
        self.buffer = buffer
        self.duration = duration
    }
}

extension Image {
    /// Every frame with its duration (one frame for still images), all in memory at once. Encoders
    /// walk an animation with `streamedFrame(at:)` instead, holding one frame at a time.
    package func frames() throws -> [ImageFrame] {
        try (0..<frameCount).map { ImageFrame(try frame(at: $0), duration: duration(at: $0)) }
    }

    /// Frame `index` with its duration, for one pass over every frame in order (an encoder writing
    /// an animation): decoded, thumbnailed and transformed when asked for and not kept by the frame
    /// cache, so the pass holds the frame being written, not all of them.
    public func streamedFrame(at index: Int) throws -> ImageFrame {
        switch content {
        case .still:
            return ImageFrame(try frame(at: index), duration: 0)
        case .animated(let animation):
            return ImageFrame(try animation.frame(at: index, caching: false), duration: animation.duration(at: index))
        }
    }
}
