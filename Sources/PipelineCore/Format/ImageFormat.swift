import Foundation

/// An image file format: an identifier plus the names, MIME types and file extensions that go with
/// it, the magic-byte test that recognises it, and whether it can hold an animation.
///
/// Formats compare by `identifier` alone. Everything that names a format (sniffing, `named(_:)`,
/// the CLI's `--format` and output extensions, the HTTP loader's `Accept` header) reads the
/// registered table, `ImageFormatRegistry.shared`. The built-in formats are registered there
/// already; a plugin registers its own once, at start-up, beside adding its coder:
/// ```swift
/// extension ImageFormat {
///     static let pnm = ImageFormat(identifier: "pnm", mimeTypes: ["image/x-portable-anymap"],
///                                  fileExtensions: ["pnm", "pam"], signature: .ascii("P7"))
/// }
/// ImageFormatRegistry.shared.register(.pnm)
/// ```
public struct ImageFormat: Hashable, Sendable, CustomStringConvertible {
    /// A short lowercase name, unique among formats: `"png"`, `"jpeg"`, … It is what `--json`
    /// output prints.
    public let identifier: String
    /// Other names `named(_:)` accepts besides the identifier, extensions and MIME types
    /// (lowercase), e.g. a format's common name when it is no file extension.
    public let names: [String]
    /// Lowercase; the first one is the format's MIME type (what `Accept` and responses name).
    public let mimeTypes: [String]
    /// Lowercase, without the dot; the first one is what encoders write.
    public let fileExtensions: [String]
    /// The format can hold an animation (several timed frames).
    package let supportsAnimation: Bool
    /// The magic-byte test sniffing uses; nil for formats known only by name (camera raw).
    let signature: Signature?

    public init(
        identifier: String, names: [String] = [], mimeTypes: [String], fileExtensions: [String],
        supportsAnimation: Bool = false, signature: Signature? = nil
    ) {
        self.identifier = identifier.lowercased()
        self.names = names.map { $0.lowercased() }
        self.mimeTypes = mimeTypes.map { $0.lowercased() }
        self.fileExtensions = fileExtensions.map { $0.lowercased() }
        self.supportsAnimation = supportsAnimation
        self.signature = signature
    }

    /// A format with one MIME type, no signature and no animation: enough for a coder's own use,
    /// invisible to sniffing until registered with a signature.
    package init(identifier: String, mimeType: String, fileExtensions: [String]) {
        self.init(identifier: identifier, mimeTypes: [mimeType], fileExtensions: fileExtensions)
    }

    package var mimeType: String { mimeTypes.first ?? "application/octet-stream" }
    public var description: String { identifier }

    public static func == (lhs: ImageFormat, rhs: ImageFormat) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// Whether `data` starts as this format's signature says; false without one. Coders sniff with
    /// it, so another format registered in the table can never take their own bytes from them.
    package func matches(_ data: some DataProtocol) -> Bool {
        signature?.matches(SniffedBytes(data)) ?? false
    }

    /// Whether `name` (already lowercased, without a leading dot) is one of this format's names,
    /// extensions or MIME types.
    func answers(to name: String) -> Bool {
        names.contains(name) || fileExtensions.contains(name) || mimeTypes.contains(name)
    }
}
