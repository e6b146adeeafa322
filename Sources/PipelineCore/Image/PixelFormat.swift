/// How one pixel is laid out in memory. All formats are 8 bits per channel, straight (not
/// premultiplied) alpha, channels interleaved in the order of the name.
///
/// Decoders keep the narrowest format that holds what the file has (a gray PNG stays gray), so
/// memory and encode sizes follow the source instead of always widening to RGBA.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case gray8
    case grayAlpha8
    case rgb8
    case rgba8

    public var channelCount: Int {
        switch self {
        case .gray8: 1
        case .grayAlpha8: 2
        case .rgb8: 3
        case .rgba8: 4
        }
    }

    public var bytesPerPixel: Int { channelCount }

    public var hasAlpha: Bool { self == .grayAlpha8 || self == .rgba8 }

    package var isGray: Bool { self == .gray8 || self == .grayAlpha8 }

    /// The same colour model with an alpha channel added.
    package var withAlpha: PixelFormat { isGray ? .grayAlpha8 : .rgba8 }

    /// The same colour model without its alpha channel.
    package var withoutAlpha: PixelFormat { isGray ? .gray8 : .rgb8 }
}
