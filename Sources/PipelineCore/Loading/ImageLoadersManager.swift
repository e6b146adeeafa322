import Foundation

/// The registry of loaders, itself a loader (SDWebImage's `SDImageLoadersManager`): the loader
/// added last that can load a URL loads it. Safe to change while loads run.
public final class ImageLoadersManager: ImageLoader {
    /// Starts empty: `LoaderHTTP` and `LoaderFile` register into it.
    public static let shared = ImageLoadersManager()

    private let registry: PluginRegistry<any ImageLoader>

    package init(loaders: [any ImageLoader] = []) {
        registry = PluginRegistry(loaders)
    }

    /// The loaders, lowest priority first. Setting replaces them all.
    package var loaders: [any ImageLoader] {
        get { registry.all }
        set { registry.all = newValue }
    }

    /// Adds a loader with the highest priority.
    public func add(_ loader: any ImageLoader) { registry.add(loader) }

    /// The loader for this request: the highest-priority one whose `canLoad` accepts it.
    func loader(for url: URL, options: ImageOptions = [], context: ImageContext = ImageContext()) -> (any ImageLoader)? {
        registry.byPriority.first { $0.canLoad(url, options: options, context: context) }
    }

    public func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool {
        loader(for: url, options: options, context: context) != nil
    }

    public func load(
        _ url: URL, options: ImageOptions, context: ImageContext,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult {
        guard let loader = loader(for: url, options: options, context: context) else {
            throw ImagePipeError.invalidURL(url.absoluteString)
        }
        return try await loader.load(url, options: options, context: context, progress: progress)
    }

    public func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        guard let loader = loader(for: url, options: options, context: context) else { return error.blocksURLByDefault }
        return loader.shouldBlockURL(url, error: error, options: options, context: context)
    }
}
