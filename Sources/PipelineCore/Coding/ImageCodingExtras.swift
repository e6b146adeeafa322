/// Plugin-specific coder options (WebP's encoding method, PNG's compression level…), typed like
/// `ImageContext` but hashable, because decode options decide which in-flight decodes can be
/// shared.
///
/// ```swift
/// extension ImageCodingExtras.Key where Value == Int {
///     static var pngCompressionLevel: Self { .init("png.compressionLevel") }
/// }
/// options.extras[.pngCompressionLevel] = 9
/// ```
public struct ImageCodingExtras: Hashable, Sendable {
    public struct Key<Value: Hashable & Sendable>: Hashable, Sendable {
        let name: String
        public init(_ name: String) { self.name = name }
    }

    /// Values are `Hashable & Sendable` by the key's constraint; `AnyHashable` itself is not marked
    /// `Sendable`, hence the box.
    private struct Box: Hashable, @unchecked Sendable {
        let value: AnyHashable
    }

    private var storage: [String: Box] = [:]

    @usableFromInline package init() {}

    public subscript<Value>(key: Key<Value>) -> Value? {
        get { storage[key.name]?.value.base as? Value }
        set { storage[key.name] = newValue.map { Box(value: AnyHashable($0)) } }
    }

}
