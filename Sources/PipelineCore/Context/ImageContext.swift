/// Per-request settings that flags cannot carry: which cache, loader, coder or transformer to use,
/// thumbnail sizes, cache types, modifiers… SDWebImage's `SDWebImageContext`, but typed:
///
/// ```swift
/// var context = ImageContext()
/// context[.thumbnailPixelSize] = ImageSize(width: 100, height: 100)
/// context[.imageTransformer] = ResizingTransformer(size: …)
/// let size: ImageSize? = context[.thumbnailPixelSize]
/// ```
/// A key fixes its value's type, so a wrong value does not compile. Plugins declare keys of their own
/// the same way the core does (see `ImageContext.Key`).
public struct ImageContext: Sendable {
    /// A typed key. Declare one as a static property in a constrained extension:
    /// ```swift
    /// extension ImageContext.Key where Value == Int {
    ///     static var webPMethod: Self { .init("webp.method") }
    /// }
    /// ```
    /// Keys are equal when their names are; plugins prefix theirs (`"webp."`) to stay apart.
    public struct Key<Value: Sendable>: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// Whether a value under this key changes what a load fetches in a way no key can compare
        /// (a closure, such as LoaderHTTP's request modifier): a request carrying one never shares
        /// its download with another.
        let preventsCoalescing: Bool

        public init(_ name: String, preventsCoalescing: Bool = false) {
            self.name = name
            self.preventsCoalescing = preventsCoalescing
        }

        public var description: String { name }
    }

    private var storage: [String: any Sendable] = [:]
    /// The names of stored keys that prevent coalescing.
    private var uncoalescable: Set<String> = []

    public init() {}

    public subscript<Value>(key: Key<Value>) -> Value? {
        get {
            // An absent key answers before the cast: casting nil still calls the runtime's dynamic
            // cast, and a memory hit reads a dozen keys of a usually empty context, which answers
            // before hashing the name.
            guard !storage.isEmpty, let value = storage[key.name] else { return nil }
            return value as? Value
        }
        set {
            storage[key.name] = newValue
            if key.preventsCoalescing, newValue != nil { uncoalescable.insert(key.name) } else { uncoalescable.remove(key.name) }
        }
    }

    /// Whether a value in this context keeps its load from sharing a download (see
    /// `Key.preventsCoalescing`).
    package var preventsCoalescing: Bool { !uncoalescable.isEmpty }

    /// The names of the keys that hold a value, for diagnostics.
    var keyNames: [String] { storage.keys.sorted() }

    package var isEmpty: Bool { storage.isEmpty }

    package func contains<Value>(_ key: Key<Value>) -> Bool { storage[key.name] is Value }

    /// This context with `other`'s values added where this one has none (SDWebImage's manager fills
    /// in its transformer, key filter and serializer this way: the caller's context wins).
    package func fillingGaps(from other: ImageContext) -> ImageContext {
        var merged = self
        for (name, value) in other.storage where merged.storage[name] == nil {
            merged.storage[name] = value
            if other.uncoalescable.contains(name) { merged.uncoalescable.insert(name) }
        }
        return merged
    }

    /// A copy with one value changed.
    package func with<Value>(_ key: Key<Value>, _ value: Value?) -> ImageContext {
        var copy = self
        copy[key] = value
        return copy
    }
}
