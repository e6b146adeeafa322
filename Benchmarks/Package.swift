// swift-tools-version:6.0
// Every ImagePipe benchmark executable, in one package beside the library so `make test` (the root
// package) never compiles them. Each is run by a script in Benchmarks/scripts/; see Benchmarks/README.md.
import PackageDescription

let package = Package(
    name: "ImagePipeBenchmarks",
    dependencies: [
        .package(name: "ImagePipe", path: ".."),
        // Already in ImagePipe's graph; cache-bench counts the disk cache's trims through its logger.
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
    ],
    targets: [
        // CodersPNG / CodersJPEG against c/coders_png_jpeg.c (Benchmarks/scripts/coders-png-jpeg.sh).
        .executableTarget(name: "coders-png-jpeg-bench", dependencies: [
            .product(name: "CodersPNG", package: "ImagePipe"),
            .product(name: "CodersJPEG", package: "ImagePipe"),
        ]),
        // CodersWebP / CodersGIF decode-all-frames against c/decode_webp_gif.c (Benchmarks/scripts/coders-webp-gif.sh).
        .executableTarget(name: "coders-webp-gif-bench", dependencies: [
            .product(name: "CodersWebP", package: "ImagePipe"),
            .product(name: "CodersGIF", package: "ImagePipe"),
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
        ]),
        // CodersPNG's APNG decode-all-frames against Pillow (Benchmarks/scripts/coders-apng.sh).
        .executableTarget(name: "coders-apng-bench", dependencies: [
            .product(name: "CodersPNG", package: "ImagePipe"),
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
        ]),
        // CodersAVIF / CodersHEIF decode against c/decode_avif_heif.c, 256 px thumbnails against
        // vipsthumbnail (Benchmarks/scripts/coders-avif-heif.sh).
        .executableTarget(name: "coders-avif-heif-bench", dependencies: [
            .product(name: "CodersAVIF", package: "ImagePipe"),
            .product(name: "CodersJPEG", package: "ImagePipe"),
            .product(name: "CodersHEIF", package: "ImagePipe"),
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
        ]),
        // CodersTIFF against c/decode_tiff.c, 256 px thumbnails against vipsthumbnail
        // (Benchmarks/scripts/coders-tiff.sh).
        .executableTarget(name: "coders-tiff-bench", dependencies: [
            .product(name: "CodersTIFF", package: "ImagePipe"),
            .product(name: "CodersJPEG", package: "ImagePipe"),
            .product(name: "PipelineCore", package: "ImagePipe"),
        ]),
        // CodersJXL decode against c/decode_jxl.c, 256 px thumbnails against vipsthumbnail, encode
        // against cjxl (Benchmarks/scripts/coders-jxl.sh).
        .executableTarget(name: "coders-jxl-bench", dependencies: [
            .product(name: "CodersJXL", package: "ImagePipe"),
            .product(name: "CodersJPEG", package: "ImagePipe"),
            .product(name: "CodersPNG", package: "ImagePipe"),
            .product(name: "PipelineCore", package: "ImagePipe"),
        ]),
        // HTTPLoader against `curl --parallel` on a local server (Benchmarks/scripts/loader-http.sh).
        .executableTarget(name: "loader-http-bench", dependencies: [
            .product(name: "LoaderHTTP", package: "ImagePipe"),
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
        ]),
        // MemoryCache against NSCache, DiskCache against plain reads (Benchmarks/scripts/cache.sh),
        // DiskCache at scale (Benchmarks/scripts/disk-cache-scale.sh).
        .executableTarget(name: "cache-bench", dependencies: [
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // ImageManager memory-cache hits and the Lanczos-3 resampler against libvips (Benchmarks/scripts/manager.sh).
        .executableTarget(name: "manager-bench", dependencies: [
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
            .product(name: "CodersPNG", package: "ImagePipe"),
        ]),
        // RedisImageCache lookups against redis-benchmark GETs, and ImageServer with its sources in
        // Redis against local ones (Benchmarks/scripts/redis-lookups.sh).
        .executableTarget(name: "redis-bench", dependencies: [
            .product(name: "CacheRedis", package: "ImagePipe"),
            .product(name: "ImageServer", package: "ImagePipe"),
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
