import Foundation

/// The registry of coders, itself a coder (SDWebImage's `SDImageCodersManager`).
///
/// Priority follows registration: the coder added last is asked first. For decoding, the first coder
/// whose `canDecode` accepts the bytes decides, and its result is final (no fallback to the next
/// coder: a PNG that libpng rejects is corrupt, not a job for another coder). Safe to change while
/// other tasks decode: each call works on a snapshot of the list.
public final class ImageCodersManager: ImageCoder {
    /// The registry the pipeline uses unless a request names a coder. Starts empty: plugins register
    /// into it (`ImageCodersManager.shared.add(PNGCoder())`).
    public static let shared = ImageCodersManager()

    private let registry: PluginRegistry<any ImageCoder>
    /// Where decodes through this registry reserve their estimated memory before they run
    /// (`decodeImage(_:options:context:colorConverters:on:)`). Default: the process-wide one.
    let decodeMemoryBudget: DecodeMemoryBudget

    public init(coders: [any ImageCoder] = [], decodeMemoryBudget: DecodeMemoryBudget = .shared) {
        registry = PluginRegistry(coders)
        self.decodeMemoryBudget = decodeMemoryBudget
    }

    /// The coders, lowest priority first, like SDWebImage's `coders` array. Setting replaces them all.
    package var coders: [any ImageCoder] {
        get { registry.all }
        set { registry.all = newValue }
    }

    /// Adds a coder with the highest priority.
    public func add(_ coder: any ImageCoder) { registry.add(coder) }

    /// Removes every coder of type `type`.
    package func remove<C: ImageCoder>(_ type: C.Type) { registry.remove(type) }

    /// Highest priority first.
    private var byPriority: ReversedCollection<[any ImageCoder]> { registry.byPriority }

    /// The coder that decodes these bytes: the highest-priority one whose `canDecode` accepts them.
    public func coder(for data: Data) -> (any ImageCoder)? {
        byPriority.first { $0.canDecode(data) }
    }

    /// The highest-priority progressive coder that can start on these bytes.
    package func progressiveCoder(for data: Data) -> (any ProgressiveImageCoder)? {
        for coder in byPriority {
            if let progressive = coder as? any ProgressiveImageCoder, progressive.canDecodeIncrementally(data) {
                return progressive
            }
        }
        return nil
    }

    /// The highest-priority animated coder that decodes these bytes.
    func animatedCoder(for data: Data) -> (any AnimatedImageCoder)? {
        for coder in byPriority {
            if let animated = coder as? any AnimatedImageCoder, animated.canDecode(data) { return animated }
        }
        return nil
    }

    /// The highest-priority coder that encodes `format`.
    func encoder(for format: ImageFormat) -> (any ImageCoder)? {
        byPriority.first { $0.canEncode(to: format) }
    }

    // MARK: ImageCoder

    public func canDecode(_ data: Data) -> Bool { coder(for: data) != nil }

    public func canDecode(format: ImageFormat) -> Bool { byPriority.contains { $0.canDecode(format: format) } }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw ImagePipeError.badImageData(reason: "no bytes") }
        guard let coder = coder(for: data) else {
            let format = ImageFormat.detect(in: data)
            throw ImagePipeError.unsupportedFormat(
                format, reason: format == .undefined ? Self.leadingBytes(of: data) : "no registered coder decodes it")
        }
        return try coder.decode(data, options: options)
    }

    /// "they start with 3C 21 44 4F (\"<!DO\")": what bytes no coder knows look like, so a reader can
    /// tell an HTML error page or a PDF from a damaged image.
    static func leadingBytes(of data: Data) -> String {
        let head = data.prefix(8)
        let hex = head.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined(separator: " ")
        let text = String(head.map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "." })
        return "they start with \(hex) (\"\(text)\")"
    }

    /// The estimate of the coder that would decode these bytes.
    public func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        coder(for: data)?.decodeEstimate(for: data, options: options)
    }

    /// The answer of the coder that would decode these bytes; `.unknown` when none would.
    public func firstFrameExtent(of prefix: Data) -> ImageFirstFrameExtent {
        coder(for: prefix)?.firstFrameExtent(of: prefix) ?? .unknown
    }

    public func canEncode(to format: ImageFormat) -> Bool { encoder(for: format) != nil }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard let coder = encoder(for: format) else {
            throw ImagePipeError.unsupportedFormat(format, reason: "no registered coder encodes it")
        }
        return try coder.encode(image, as: format, options: options)
    }

    public func encode(frames: [ImageFrame], loopCount: Int, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        guard let coder = encoder(for: format) else {
            throw ImagePipeError.unsupportedFormat(format, reason: "no registered coder encodes it")
        }
        return try coder.encode(frames: frames, loopCount: loopCount, as: format, options: options)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
