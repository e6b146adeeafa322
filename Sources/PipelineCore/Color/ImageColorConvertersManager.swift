/// The registry of colour converters, like `ImageCodersManager` for coders: the converter added
/// last is asked first, and the first whose `canConvert` accepts a profile converts it. Starts
/// empty, so without a plugin images keep their pixels and profile as decoded.
public final class ImageColorConvertersManager: Sendable {
    /// The registry the decode step uses: plugins register into it
    /// (`ImageColorConvertersManager.shared.add(LCMSColorConverter())`).
    public static let shared = ImageColorConvertersManager()

    private let registry: PluginRegistry<any ImageColorConverter>

    public init(converters: [any ImageColorConverter] = []) {
        registry = PluginRegistry(converters)
    }

    /// The converters, lowest priority first. Setting replaces them all.
    package var converters: [any ImageColorConverter] {
        get { registry.all }
        set { registry.all = newValue }
    }

    /// Adds a converter with the highest priority.
    public func add(_ converter: any ImageColorConverter) { registry.add(converter) }

    /// The highest-priority converter that reads `profile`.
    package func converter(for profile: ImageColorProfile) -> (any ImageColorConverter)? {
        registry.byPriority.first { $0.canConvert(from: profile) }
    }

    /// The CMYK converter `handling` asks for with a CMYK `profile`: from the highest-priority
    /// converter that reads the profile and converts CMYK. Nil when `handling` keeps the source
    /// profile, the profile is not a CMYK ICC profile, or no converter here converts CMYK, so the
    /// decoder keeps its own naive CMYK arithmetic.
    ///
    /// - Throws: `ImageColorConversionError` when the converter refuses the profile.
    public func cmykConverter(for handling: ImageColorHandling, profile: ImageColorProfile?, inverted: Bool) throws -> (any CMYKRowConverter)? {
        guard case .convertToSRGB(let intent) = handling, let profile, profile.iccColorSpace == "CMYK" else { return nil }
        for converter in registry.byPriority where converter.canConvert(from: profile) {
            if let rows = try converter.cmykConverter(from: profile, inverted: inverted, intent: intent) { return rows }
        }
        return nil
    }

    /// The profile's name from the converter that reads it, or nil.
    package func profileDescription(_ profile: ImageColorProfile) -> String? {
        converter(for: profile)?.profileDescription(profile)
    }
}
