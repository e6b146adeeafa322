import Foundation

/// The table of image formats everything that names a format reads: sniffing
/// (`ImageFormat.detect(in:)`), look-ups by name (`ImageFormat.named(_:)`), the CLI's `--format` and
/// output extensions, the HTTP loader's default `Accept` header.
///
/// Starts with the core's built-in formats (`ImageFormat.builtIn`); plugins register theirs the same
/// way. Registering a format whose identifier is taken replaces that entry, so a plugin can refine a
/// built-in format (a stricter signature, more names). Like the coders, the format registered last
/// is asked first when sniffing and when a name could mean several formats. Safe to change while
/// other tasks sniff: each call works on a snapshot.
public final class ImageFormatRegistry: Sendable {
    /// The table the library and the CLI read.
    public static let shared = ImageFormatRegistry()

    private let registry: PluginRegistry<ImageFormat>

    /// A table of its own, for tests; everything else reads `shared`.
    package init(formats: [ImageFormat] = ImageFormat.builtIn) {
        registry = PluginRegistry([])
        for format in formats { register(format) }
    }

    /// Every registered format in registration order (built-ins first).
    public var formats: [ImageFormat] { registry.all }

    /// Adds `format`, in place of any registered format with its identifier.
    public func register(_ format: ImageFormat) {
        registry.add(format, replacing: { $0.identifier == format.identifier })
    }

    /// Removes the format with `format`'s identifier: it is no longer sniffed nor found by name.
    func unregister(_ format: ImageFormat) {
        registry.remove { $0.identifier == format.identifier }
    }

    /// `ImageFormat.detect(in:)` against this table.
    package func detect(in data: some DataProtocol) -> ImageFormat {
        guard !data.isEmpty else { return .undefined }
        let sniffed = ImageFormat.SniffedBytes(data)
        return registry.byPriority.first { $0.signature?.matches(sniffed) == true } ?? .undefined
    }

    /// `ImageFormat.named(_:)` against this table.
    package func format(named name: String) -> ImageFormat? {
        var lowered = name.lowercased()
        if lowered.hasPrefix(".") { lowered.removeFirst() }
        let candidates = registry.byPriority
        return candidates.first { $0.identifier == lowered } ?? candidates.first { $0.answers(to: lowered) }
    }
}
