import Foundation
import PipelineCore
import Synchronization

/// The tests' `ImageCache`: two levels in dictionaries, with SDWebImage's query rules in miniature.
/// Memory holds images (and the bytes stored with them), "disk" holds bytes; a disk hit is decoded
/// with `decode` and promoted to memory when the request's store type allows, and without `decode`
/// answers with the bytes alone. An image stored for disk without bytes is kept as `encode`
/// makes it. `name` tells which cache answered, `delay` slows queries and `contains`, and every
/// store is recorded.
public final class InMemoryImageCache: ImageCache {
    public struct Store: Sendable, Equatable {
        public let key: String
        public let type: ImageCacheType
        public let hadImage: Bool
        public let hadData: Bool
    }
    /// Decodes disk bytes for a query: the bytes, the query's options and context, and the key.
    public typealias Decode = @Sendable (Data, ImageOptions, ImageContext, String) -> Image?

    public let name: String
    public let delay: Duration
    private let decode: Decode?
    private let encode: (@Sendable (Image) -> Data?)?
    private let memory = Mutex<[String: (image: Image?, data: Data?)]>([:])
    private let disk = Mutex<[String: Data]>([:])
    private let storeLog = Mutex<[Store]>([])
    public let queries = Counter()
    public let diskReads = Counter()

    public init(name: String = "cache", delay: Duration = .zero, decode: Decode? = nil, encode: (@Sendable (Image) -> Data?)? = nil) {
        self.name = name
        self.delay = delay
        self.decode = decode
        self.encode = encode
    }

    public func query(key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async -> ImageCacheResult? {
        queries.increment()
        if delay > .zero { try? await Task.sleep(for: delay) }
        if cacheType.includesMemory, let entry = memory.withLock({ $0[key] }) {
            return ImageCacheResult(image: entry.image, data: entry.data, cacheType: .memory)
        }
        guard cacheType.includesDisk, let data = disk.withLock({ $0[key] }) else { return nil }
        diskReads.increment()
        guard let decode else { return ImageCacheResult(image: nil, data: data, cacheType: .disk) }
        guard let image = decode(data, options, context, key) else { return nil }
        if (context[.storeCacheType] ?? .all).includesMemory { memory.withLock { $0[key] = (image, nil) } }
        return ImageCacheResult(image: image, data: data, cacheType: .disk)
    }

    public func store(_ image: Image?, data: Data?, key: String, options: ImageOptions, context: ImageContext, cacheType: ImageCacheType) async {
        storeLog.withLock { $0.append(Store(key: key, type: cacheType, hadImage: image != nil, hadData: data != nil)) }
        if cacheType.includesMemory, image != nil || data != nil && decode == nil {
            memory.withLock { $0[key] = (image, decode == nil ? data : nil) }
        }
        if cacheType.includesDisk, let bytes = data ?? image.flatMap({ encode?($0) }) {
            disk.withLock { $0[key] = bytes }
        }
    }

    public func remove(key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { _ = memory.withLock { $0.removeValue(forKey: key) } }
        if cacheType.includesDisk { _ = disk.withLock { $0.removeValue(forKey: key) } }
    }

    public func contains(key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        if delay > .zero { try? await Task.sleep(for: delay) }
        if cacheType.includesMemory, memory.withLock({ $0[key] != nil }) { return .memory }
        if cacheType.includesDisk, disk.withLock({ $0[key] != nil }) { return .disk }
        return .none
    }

    public func clear(_ cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memory.withLock { $0.removeAll() } }
        if cacheType.includesDisk { disk.withLock { $0.removeAll() } }
    }

    public var memoryKeys: [String] { memory.withLock { $0.keys.sorted() } }
    public var diskKeys: [String] { disk.withLock { $0.keys.sorted() } }
    /// Keys held at either level.
    public var keys: [String] { Array(Set(memoryKeys + diskKeys)).sorted() }
    public var stores: [Store] { storeLog.withLock { $0 } }
    public func putOnDisk(_ data: Data, key: String) { disk.withLock { $0[key] = data } }
    public func diskData(_ key: String) -> Data? { disk.withLock { $0[key] } }
}
