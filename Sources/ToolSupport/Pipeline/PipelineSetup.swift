import CacheRedis
import CodersAVIF
import CodersBMP
import CodersGIF
import CodersHEIF
import CodersJPEG
import CodersJXL
import CodersPNG
import CodersSVG
import CodersTIFF
import CodersWebP
import ColorConverterLCMS
import Foundation
import ImagePipe
import LoaderFile
import LoaderHTTP
import Logging
import PipelineCore

/// Registers the built-in plugins into the shared registries, one line each, as a library user
/// would, and makes the manager a command uses.
package enum PipelineSetup {
    /// Decode extras that ask the tool's coders for a source's embedded thumbnail (`eth:`).
    package static var embeddedThumbnailExtras: ImageCodingExtras {
        var extras = ImageCodingExtras()
        extras[.heifEmbeddedThumbnail] = true
        return extras
    }

    package static func registerPlugins() {
        let coders = ImageCodersManager.shared
        if coders.coders.isEmpty {
            // AVIF's and HEIF's entries sniff more brands than the built-in table's.
            ImageFormatRegistry.shared.register(AVIFCoder.format)
            HEIFCoder.formats.forEach(ImageFormatRegistry.shared.register)
            coders.add(TIFFCoder())
            coders.add(BMPCoder())
            coders.add(HEIFCoder())
            coders.add(JXLCoder())
            coders.add(SVGCoder())
            coders.add(AVIFCoder())
            coders.add(GIFCoder())
            coders.add(WebPCoder())
            coders.add(JPEGCoder())
            coders.add(PNGCoder())
        }
        registerColorConverters()
        let loaders = ImageLoadersManager.shared
        if loaders.loaders.isEmpty {
            loaders.add(HTTPLoader.shared)
            loaders.add(FileLoader())
        }
    }

    /// Little CMS for colour-managed decodes, in the shared registry every decode consults.
    package static func registerColorConverters() {
        let converters = ImageColorConvertersManager.shared
        if converters.converters.isEmpty { converters.add(LCMSColorConverter()) }
    }

    /// The CLI's cache directory: `--cache-dir`, else the library's shared cache folder
    /// (`$XDG_CACHE_HOME/imagepipe/default`, else `~/.cache/imagepipe/default`), so the tool and
    /// programs using `DefaultImageCache.shared` share entries.
    package static func cacheDirectory(_ option: String?) -> URL {
        if let option { return URL(fileURLWithPath: option).standardizedFileURL }
        return DefaultImageCache.defaultDirectory.appendingPathComponent("default", isDirectory: true)
    }

    /// The disk cache `fetch` and `cache` use: no timer (a command is short), and a logger that
    /// prints what the cache could not do as `imagepipe: warning: …` lines.
    package static func diskCache(at directory: URL) -> DiskCache {
        let logger = Logger(label: "imagepipe.cache") { _ in ToolLogHandler() }
        return DiskCache(directory: directory, configuration: DiskCache.Configuration(trimInterval: nil, logger: logger))
    }

    /// A manager over the shared coders and loaders and the given cache (none with `noCache`).
    /// With `redis`, the local cache is asked first, then Redis; stores go to both, and a source
    /// several processes miss at once is fetched by one of them while the others wait for its copy
    /// (`RedisSharedLoader`). That loader has already stored a shared source in Redis under its
    /// original key, so `sharedSourceOriginals` (the local cache alone) is where such a source's
    /// original goes (`ImageContext.originalImageCache`): one write to Redis, not two.
    package static func manager(cacheDirectory: URL?, redis: RedisCacheConfiguration? = nil)
        -> (manager: ImageManager, sharedSourceOriginals: (any ImageCache)?)
    {
        registerPlugins()
        var cache: any ImageCache
        if let cacheDirectory {
            cache = DefaultImageCache(memoryCache: MemoryCache(), diskCache: diskCache(at: cacheDirectory))
        } else {
            cache = ImageCachesManager()
        }
        var loader: any ImageLoader = ImageLoadersManager.shared
        var sharedSourceOriginals: (any ImageCache)?
        if let redis {
            let shared = RedisImageCache(configuration: redis)
            var policies = ImageCachesManager.Policies()
            policies.store = .serial
            sharedSourceOriginals = cache
            cache = ImageCachesManager(caches: [shared, cache], policies: policies)
            loader = RedisSharedLoader(origin: loader, cache: shared)
        }
        return (ImageManager(cache: cache, loader: loader, coders: .shared), sharedSourceOriginals)
    }
}
