import Foundation

/// Every error ImagePipe reports. Cases mirror SDWebImage's error codes (`code` gives the number),
/// plus loaders' own failures, limits and unsupported formats. Each message says what went wrong
/// and, where there is one, what to do about it.
public enum ImagePipeError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The URL is missing, empty or not something any loader understands (1000).
    case invalidURL(String)
    /// The bytes are not a decodable image: empty, corrupt, truncated, or decoded to zero pixels (1001).
    case badImageData(reason: String)
    /// The server's copy is the one already cached (1002).
    case cacheNotModified
    /// The URL failed permanently before and is blocked; pass `.retryFailed` to try again (1003).
    case blockedURL(String)
    /// The request could not be made: a request modifier refused it, or the loader could not start (2000).
    case invalidDownloadOperation(reason: String)
    /// The caller cancelled (2002). Never blocks the URL.
    case cancelled
    /// A response modifier refused the response, or it was malformed (2003).
    case invalidResponse(reason: String)
    /// The response's content type is not in the acceptable set (2004).
    case badContentType(String)
    /// A loader failed in its own terms: an HTTP status, a refused connection, a timeout. The
    /// failure is open like `Limit`: each loader declares its own beside its configuration
    /// (LoaderHTTP's `.httpStatus`, `.timedOut`…), so callers match them typed. `status` is a number
    /// the failure gives meaning to (the HTTP status), `message` the whole text `description` shows.
    case loadFailed(LoadFailure, status: Int?, message: String)
    /// A configured limit was hit before or while working; `value` is what was asked for.
    case limitExceeded(Limit, value: Int, maximum: Int)
    /// No coder can handle this format, or the coder cannot do this with it (12-bit JPEG, say).
    case unsupportedFormat(ImageFormat, reason: String)
    /// Encoding failed.
    case encodingFailed(reason: String)
    /// Reading or writing a file failed.
    case fileSystem(path: String, reason: String)
    /// A path resolved outside the directories a loader was allowed to read.
    case accessDenied(path: String)
    /// A frame was asked for that the image does not have: not a limit, the image is what it is.
    case frameOutOfRange(index: Int, frameCount: Int)

    /// What a `limitExceeded` error ran into, and the setting that raises it. Open like the formats:
    /// a plugin declares its own limits in an extension (`FileLoaderConfiguration.maxBytes` is
    /// LoaderFile's), so every limit error can say where to raise it.
    public struct Limit: Sendable, Hashable, CustomStringConvertible {
        /// A short name, as in "pixels limit exceeded".
        public let name: String
        /// The setting that raises the limit (`Type.property`), nil where nothing does (a size
        /// that overflows the address space).
        public let setting: String?

        public init(name: String, setting: String?) {
            self.name = name
            self.setting = setting
        }

        public var description: String { name }

        /// Pixels of one frame's canvas: `ImageDecodeOptions.maxPixels`.
        public static let pixels = Limit(name: "pixels", setting: "ImageDecodeOptions.maxPixels")
        /// Frames of an animation: `ImageDecodeOptions.maxFrames`.
        package static let frames = Limit(name: "frames", setting: "ImageDecodeOptions.maxFrames")
        /// Canvas pixels summed over an animation's frames: `ImageDecodeOptions.maxAnimationPixels`.
        package static let animationPixels = Limit(name: "animationPixels", setting: "ImageDecodeOptions.maxAnimationPixels")
        /// Pixels of each frame's canvas of an animation: `ImageDecodeOptions.maxAnimationFramePixels`.
        package static let animationFramePixels = Limit(name: "animationFramePixels", setting: "ImageDecodeOptions.maxAnimationFramePixels")
        /// Bytes of a decoder's working memory: `ImageDecodeOptions.maxDecoderMemory`.
        package static let decoderMemory = Limit(name: "decoderMemory", setting: "ImageDecodeOptions.maxDecoderMemory")
        /// Scans of a progressive JPEG: `ImageDecodeOptions.maxProgressiveScans`.
        package static let progressiveScans = Limit(name: "progressiveScans", setting: "ImageDecodeOptions.maxProgressiveScans")
        /// Milliseconds one decode may take: `ImageDecodeOptions.maxDecodeTime`.
        public static let decodeTime = Limit(name: "decodeTime", setting: "ImageDecodeOptions.maxDecodeTime")
        /// Bytes of a pixel buffer whose size overflows; no setting raises it.
        package static let bytes = Limit(name: "bytes", setting: nil)
        /// Bytes of an embedded colour profile: `ImageDecodeOptions.maxColorProfileBytes`. Over it
        /// the profile is dropped with a warning naming this setting; the image still decodes.
        static let colorProfileBytes = Limit(name: "colorProfileBytes", setting: "ImageDecodeOptions.maxColorProfileBytes")
        /// Bytes of an EXIF block or XMP packet: `ImageDecodeOptions.maxMetadataBytes`. Over it the
        /// block is dropped with a warning naming this setting; the image still decodes.
        static let metadataBytes = Limit(name: "metadataBytes", setting: "ImageDecodeOptions.maxMetadataBytes")
    }

    /// What a `loadFailed` error ran into. Declared by the loader that reports it, in an extension
    /// beside its configuration, as limits are.
    public struct LoadFailure: Sendable, Hashable, CustomStringConvertible {
        /// A short name, as in "transfer failed (timedOut)".
        public let name: String
        /// The number `ImagePipeError.code` reports: SDWebImage's where it has one.
        public let code: Int
        /// Whether a later attempt may succeed; a loader never blocks a URL for such a failure.
        public let isTransient: Bool

        public init(name: String, code: Int, isTransient: Bool) {
            self.name = name
            self.code = code
            self.isTransient = isTransient
        }

        public var description: String { name }
    }

    /// SDWebImage's `SDWebImageError` number where there is one; ImagePipe's own cases use 3000+.
    package var code: Int {
        switch self {
        case .invalidURL: 1000
        case .badImageData: 1001
        case .cacheNotModified: 1002
        case .blockedURL: 1003
        case .invalidDownloadOperation: 2000
        case .cancelled: 2002
        case .invalidResponse: 2003
        case .badContentType: 2004
        case .loadFailed(let failure, _, _): failure.code
        case .limitExceeded: 3001
        case .unsupportedFormat: 3002
        case .encodingFailed: 3003
        case .fileSystem: 3004
        case .accessDenied: 3005
        case .frameOutOfRange: 3006
        }
    }

    public var description: String { description(namingSettings: [:]) }

    /// The description, a limit's setting named as `settings` names it (a tool's flag for a field
    /// of `ImageDecodeOptions`, say), else as the library does.
    package func description(namingSettings settings: [Limit: String]) -> String {
        switch self {
        case .invalidURL(let url):
            url.isEmpty ? "invalid URL: the URL is empty" : "invalid URL: '\(url)' is not a URL any registered loader can load"
        case .badImageData(let reason):
            "bad image data: \(reason)"
        case .cacheNotModified:
            "not modified: the server's image is the one already cached"
        case .blockedURL(let url):
            "blocked URL: '\(url)' failed permanently before; use the retryFailed option to try it again"
        case .invalidDownloadOperation(let reason):
            "the download could not start: \(reason)"
        case .cancelled:
            "cancelled"
        case .invalidResponse(let reason):
            "invalid response: \(reason)"
        case .badContentType(let type):
            "unacceptable content type '\(type)'"
        case .loadFailed(_, _, let message):
            message
        case .limitExceeded(let limit, let value, let maximum):
            if value == .max {
                "\(limit.name) limit exceeded: the size overflows; the file's header is corrupt or hostile"
            } else if let setting = settings[limit] ?? limit.setting {
                "\(limit.name) limit exceeded: \(value) is more than the maximum of \(maximum); raise \(setting) if this is expected"
            } else {
                "\(limit.name) limit exceeded: \(value) is more than the maximum of \(maximum)"
            }
        case .unsupportedFormat(.undefined, let reason):
            reason.isEmpty ? "not an image format any registered coder knows" : "not an image format any registered coder knows: \(reason)"
        case .unsupportedFormat(let format, let reason):
            reason.isEmpty ? "unsupported format '\(format.identifier)'" : "unsupported format '\(format.identifier)': \(reason)"
        case .encodingFailed(let reason):
            "encoding failed: \(reason)"
        case .fileSystem(let path, let reason):
            "file error at '\(path)': \(reason)"
        case .accessDenied(let path):
            "access denied: '\(path)' is outside the allowed directories"
        case .frameOutOfRange(let index, let frameCount):
            switch frameCount {
            case ...0: "frame \(index) is out of range: the image has no frames"
            case 1: "frame \(index) is out of range: the image has 1 frame (0)"
            default: "frame \(index) is out of range: the image has \(frameCount) frames (0–\(frameCount - 1))"
            }
        }
    }

    public var errorDescription: String? { description }

    /// True for failures that a later attempt cannot fix, whose URL SDWebImage blocks: an invalid
    /// URL and undecodable data. HTTP statuses do not block there (not even a 404); loaders refine
    /// this through `shouldBlockURL`.
    public var blocksURLByDefault: Bool {
        switch self {
        case .invalidURL, .badImageData, .unsupportedFormat, .accessDenied: true
        default: false
        }
    }
}
