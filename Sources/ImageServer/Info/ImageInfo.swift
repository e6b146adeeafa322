import Foundation
import ImagePipe
import PipelineCore

/// The answer to `/info/…`: what the source is, as `imagepipe info` names it (size as stored, the
/// orientation tag apart), and a BlurHash and the dominant colour of the image as displayed, for a
/// page to paint before the image arrives.
struct ImageInfo: Encodable, Equatable {
    var format: String
    var width: Int
    var height: Int
    var frames: Int
    var orientation: Int
    /// The ICC profile's own name; nil without one, or when no colour converter reads it.
    var iccProfile: String?
    var hasExif: Bool
    var blurHash: String
    /// `#rrggbb`; nil when every pixel is transparent.
    var dominantColor: String?

    enum CodingKeys: String, CodingKey {
        case format, width, height, frames, orientation, iccProfile, hasExif, blurHash, dominantColor
    }

    /// Nil values are written as `null`: every key is always there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(frames, forKey: .frames)
        try container.encode(orientation, forKey: .orientation)
        try container.encode(iccProfile, forKey: .iccProfile)
        try container.encode(hasExif, forKey: .hasExif)
        try container.encode(blurHash, forKey: .blurHash)
        try container.encode(dominantColor, forKey: .dominantColor)
    }

    /// The side of the copy the BlurHash and the dominant colour are computed on.
    static let sampleSide = 64

    /// How `data` is decoded for a description: the first frame composited (the others counted
    /// from the header), the colour profile and metadata kept so they can be named.
    static func decodeOptions(maxPixels: Int) -> ImageDecodeOptions {
        ImageDecodeOptions(maxPixels: maxPixels, maxAnimationPixels: .max, colorHandling: .keepSourceProfile, metadataHandling: .keepAll)
    }

    init(image: Image, data: Data) throws {
        format = (image.format == .undefined ? ImageFormat.detect(in: data) : image.format).identifier
        width = image.pixelSize.width
        height = image.pixelSize.height
        frames = image.frameCount
        orientation = image.orientation.rawValue
        iccProfile = image.metadata.colorProfile.flatMap { $0.iccData == nil ? nil : ImageColorConvertersManager.shared.profileDescription($0) }
        hasExif = image.metadata.exif != nil
        var sample = try image.firstFrameOnly().applyingOrientation().firstFrame
        if sample.width > Self.sampleSide || sample.height > Self.sampleSide {
            sample = try ResizingTransformer(size: ImageSize(width: Self.sampleSide, height: Self.sampleSide), scaleMode: .aspectFit).transform(sample)
        }
        blurHash = BlurHash.encode(sample)
        dominantColor = DominantColor.of(sample).map(DominantColor.hex)
    }

    var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}
