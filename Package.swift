// swift-tools-version:6.2
// ImagePipe: a small core of protocols and registries (`PipelineCore`) and plugins around it.
// Each module is its own product, so a user depends only on what it needs.
import PackageDescription

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "PipelineCore", targets: ["PipelineCore"]),
        .library(name: "ImagePipe", targets: ["ImagePipe"]),
        .library(name: "ImagePipeTargets", targets: ["ImagePipeTargets"]),
        .library(name: "CodersPNG", targets: ["CodersPNG"]),
        .library(name: "CodersJPEG", targets: ["CodersJPEG"]),
        .library(name: "CodersWebP", targets: ["CodersWebP"]),
        .library(name: "CodersGIF", targets: ["CodersGIF"]),
        .library(name: "CodersAVIF", targets: ["CodersAVIF"]),
        .library(name: "CodersHEIF", targets: ["CodersHEIF"]),
        .library(name: "CodersTIFF", targets: ["CodersTIFF"]),
        .library(name: "CodersBMP", targets: ["CodersBMP"]),
        .library(name: "CodersJXL", targets: ["CodersJXL"]),
        .library(name: "CodersSVG", targets: ["CodersSVG"]),
        .library(name: "LoaderFile", targets: ["LoaderFile"]),
        .library(name: "LoaderHTTP", targets: ["LoaderHTTP"]),
        .library(name: "ColorConverterLCMS", targets: ["ColorConverterLCMS"]),
        .library(name: "CacheRedis", targets: ["CacheRedis"]),
        .library(name: "PipelineConformance", targets: ["PipelineConformance"]),
        .library(name: "ImageServer", targets: ["ImageServer"]),
        .executable(name: "imagepipe", targets: ["imagepipe"]),
        .executable(name: "imagepipe-serve", targets: ["imagepipe-serve"]),
    ],
    // The service and the tool need the server stack (Hummingbird, NIO, crypto, Prometheus,
    // ArgumentParser). A package that uses only the library products turns the trait off
    // (`.package(url: …, from: …, traits: [])`) and then resolves none of it.
    traits: [
        .trait(name: "Service", description: "The ImageServer product and the imagepipe tool, with the server stack they need."),
        .default(enabledTraits: ["Service"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // 1.11 brought `LogHandler.log(event:)`, which handlers implement now.
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
        // The core's counters and timers (CoreMetrics: API only, like swift-log) and the server's.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // The engine's spans (Tracing: API only, like swift-log); the application picks the tracer.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        // `make docs`: the DocC catalogues of PipelineCore and PipelineConformance. A command plugin,
        // never built into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Only the ImageServer product (and the CLI built on it) uses these.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // `imagepipe serve --otel-endpoint`: spans exported over OTLP/HTTP (not gRPC).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The core: no C dependencies. swift-log carries what the library cannot do but carries on
        // without (a failed cache write) to the application's logging, silent unless it asks.
        // (The pipeline's metrics, through swift-metrics, are the engine's: `PipelineMetrics`.)
        .target(name: "PipelineCore", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // The engine: what an application imports to load images. The manager and its flow, the
        // memory, disk and two-level caches, the built-in transformers, the prefetcher.
        .target(name: "ImagePipe", dependencies: [
            "PipelineCore", .product(name: "Logging", package: "swift-log"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
        // SDWebImage's view categories for any object: `ImageTarget`, transitions, indicators, and the
        // animated image player with its frame buffer (as NukeUI sits beside Nuke).
        .target(name: "ImagePipeTargets", dependencies: ["PipelineCore", "ImagePipe"]),

        // Opens a C library on first use instead of linking it (libcurl, libavif, libheif), for the
        // shims that forward their own prefixed functions to it.
        .target(name: "CLazyLibrary"),
        // Encodes in a forked child the caller can kill, for the encoders that cannot stop
        // inside an image (AVIF, WebP, JPEG XL): the fork in C, the reading and polling in Swift.
        .target(name: "CChildProcess"),
        .target(name: "ChildProcessEncoding", dependencies: ["PipelineCore", "CChildProcess"]),

        // PNG on libpng. The shim holds libpng's setjmp/longjmp error handling, so no longjmp ever
        // crosses a Swift frame.
        // Writing skips libpng: the shim frames the PNG itself and compresses IDAT with libdeflate,
        // because zlib's deflate was most of an encode's time.
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // zlib (libpng's own dependency) for the stoppable compression of large images.
        .target(name: "CPNGShim", dependencies: ["CPNG", "CDeflate"], linkerSettings: [.linkedLibrary("z")]),
        .target(name: "CodersPNG", dependencies: ["PipelineCore", "CPNGShim", "CDeflate"]),
        // JPEG on libjpeg-turbo, shaped the same way.
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .target(name: "CJPEGShim", dependencies: ["CJPEG"]),
        .target(name: "CodersJPEG", dependencies: ["PipelineCore", "CJPEG", "CJPEGShim"]),
        // libwebp, libwebpdemux and libwebpmux, reached through their system headers.
        .systemLibrary(name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .target(name: "CWebPShim", dependencies: ["CWebP", "CChildProcess"]),
        .target(name: "CodersWebP", dependencies: ["PipelineCore", "CWebP", "CWebPShim", "ChildProcessEncoding"]),
        // giflib ships no .pc file; the module map links -lgif.
        .systemLibrary(name: "CGIF", path: "Sources/CGIF", providers: [.apt(["libgif-dev"])]),
        .target(name: "CodersGIF", dependencies: ["PipelineCore", "CGIF"]),
        // AVIF on libavif, which reports failures through return codes. Its headers only: the shim
        // opens libavif on first use and forwards the functions CodersAVIF calls. (Its .pc file's
        // -DAVIF_DLL is a flag SwiftPM refuses, so no pkgConfig.)
        .systemLibrary(name: "CAVIF", path: "Sources/CAVIF", providers: [.apt(["libavif-dev"])]),
        // The shim also silences dav1d's logger, which libavif 0.11 leaves printing on stderr; it
        // links libdav1d (small) so that the program exports its replacement of dav1d's defaults
        // to the libavif it opens later.
        .target(name: "CAVIFShim", dependencies: ["CAVIF", "CLazyLibrary", "CChildProcess"], linkerSettings: [.linkedLibrary("dav1d")]),
        .target(name: "CodersAVIF", dependencies: ["PipelineCore", "CAVIF", "CAVIFShim", "ChildProcessEncoding"]),
        // HEIF/HEIC on libheif (decode only), which returns its errors. Its headers only: the shim
        // opens libheif on first use and forwards the functions CodersHEIF calls.
        .systemLibrary(name: "CHEIF", path: "Sources/CHEIF", providers: [.apt(["libheif-dev"])]),
        .target(name: "CHEIFShim", dependencies: ["CHEIF", "CLazyLibrary"]),
        .target(name: "CodersHEIF", dependencies: ["PipelineCore", "CHEIF", "CHEIFShim"]),
        // TIFF on libtiff (decode only), read from memory through client callbacks. The shim turns
        // libtiff's varargs error and warning handlers into messages the decode collects. JPEG
        // strips and tiles of a thumbnail go to libjpeg (which libtiff links anyway) through
        // CJPEGShim, for its DCT scaling.
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .target(name: "CTIFFShim", dependencies: ["CTIFF"]),
        .target(name: "CodersTIFF", dependencies: ["PipelineCore", "CTIFF", "CTIFFShim", "CJPEG", "CJPEGShim"]),
        // BMP, ICO and CUR in Swift (decode only): no C library.
        .target(name: "CodersBMP", dependencies: ["PipelineCore"]),
        // JPEG XL on libjxl, which returns its errors. Its headers only: the shim opens libjxl on
        // first use and forwards the functions CodersJXL calls. (Its .pc file's -DHWY_SHARED_DEFINE
        // is a flag SwiftPM refuses, so no pkgConfig.)
        .systemLibrary(name: "CJXL", path: "Sources/CJXL", providers: [.apt(["libjxl-dev"])]),
        .target(name: "CJXLShim", dependencies: ["CJXL", "CLazyLibrary", "CChildProcess"]),
        .target(name: "CodersJXL", dependencies: ["PipelineCore", "CJXL", "CJXLShim", "ChildProcessEncoding"]),
        // SVG on librsvg and cairo. The shim opens librsvg (and through it GLib and cairo) on first
        // use and keeps their types to itself, so nothing else builds against GLib's headers.
        .target(name: "CSVGShim", dependencies: ["CLazyLibrary"]),
        .target(name: "CodersSVG", dependencies: ["PipelineCore", "CSVGShim"]),

        .target(name: "LoaderFile", dependencies: ["PipelineCore"]),
        // libcurl's headers (not linked), and a C shim that opens libcurl on the first download and
        // wraps its varargs entry points: its thirty-odd libraries would cost every start of a
        // program that reads only local files.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl", "CLazyLibrary"]),
        .target(name: "LoaderHTTP", dependencies: ["PipelineCore", "CCurl", "CCurlShim"]),

        // Colour management on Little CMS 2: ICC profiles to sRGB. lcms2 reports errors through a
        // callback and returns, so no C shim is needed.
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .target(name: "ColorConverterLCMS", dependencies: ["PipelineCore", "CLCMS2"]),

        // A shared data-tier cache on Redis or Valkey through hiredis's blocking API. Commands go
        // through `redisCommandArgv`, so hiredis's varargs entry points need no C shim. No pkgConfig:
        // hiredis.pc's -D_FILE_OFFSET_BITS=64 is a flag SwiftPM refuses (a warning); the header is
        // included by its hiredis/ path instead.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(name: "CacheRedis", dependencies: ["PipelineCore", "CHiredis", .product(name: "CoreMetrics", package: "swift-metrics")]),

        // The conformance kit plugin authors run on their coders, loaders, caches and transformers.
        .target(name: "PipelineConformance", dependencies: ["PipelineCore", .product(name: "Logging", package: "swift-log")]),

        // The image service (`imagepipe serve`): imgproxy's URL grammar on Hummingbird. Its own product
        // so that users of the core and the plugins never build the server stack.
        .target(name: "ImageServer", dependencies: [
            "PipelineCore", "ImagePipe", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF", "LoaderFile", "LoaderHTTP",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Service"])),
            .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Service"])),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Service"])),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Service"])),
            .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Service"])),
            .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Service"])),
            .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Service"])),
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Service"])),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The command line tool. `imagepipe serve` runs `imagepipe-serve`, so the other commands
        // neither link nor load the server stack (start-up, binary size).
        .executableTarget(name: "imagepipe", dependencies: [
            "ToolSupport", "PipelineCore", "ImagePipe", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF", "CodersAVIF", "CodersHEIF",
            "LoaderFile", "LoaderHTTP", "ColorConverterLCMS", "CacheRedis", "CodersTIFF", "CodersBMP", "CodersJXL", "CodersSVG",
            .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Service"])),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "imagepipe-serve", dependencies: [
            "ToolSupport", "PipelineCore", "ImageServer", "CacheRedis", "CodersAVIF",
            .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Service"])),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["Service"])),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Service"])),
        ]),
        // What the tool's two executables share: console output, logging, the pipeline's set-up.
        .target(name: "CInterruptedWrites"),
        .target(name: "ToolSupport", dependencies: [
            "PipelineCore", "CInterruptedWrites", "ImagePipe", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF", "CodersAVIF", "CodersHEIF", "LoaderFile",
            "LoaderHTTP", "ColorConverterLCMS", "CacheRedis", "CodersTIFF", "CodersBMP", "CodersJXL", "CodersSVG",
            .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Service"])),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Helper process for the disk cache's crash (kill -9) and two-process tests.
        .executableTarget(name: "cache-stress", dependencies: ["PipelineCore", "ImagePipe"]),

        // Programs built from one coder product each, whose linked libraries ProductLinkageTests reads.
        .executableTarget(name: "linkage-probe-png", dependencies: ["PipelineCore", "CodersPNG"], path: "Tests/LinkageProbes/png-only"),
        .executableTarget(name: "linkage-probe-avif", dependencies: ["PipelineCore", "CodersAVIF"], path: "Tests/LinkageProbes/avif-only"),
        .executableTarget(name: "linkage-probe-heif", dependencies: ["PipelineCore", "CodersHEIF"], path: "Tests/LinkageProbes/heif-only"),
        .executableTarget(name: "linkage-probe-tiff", dependencies: ["PipelineCore", "CodersTIFF"], path: "Tests/LinkageProbes/tiff-only"),
        .executableTarget(name: "linkage-probe-bmp", dependencies: ["PipelineCore", "CodersBMP"], path: "Tests/LinkageProbes/bmp-only"),
        .executableTarget(name: "linkage-probe-jxl", dependencies: ["PipelineCore", "CodersJXL"], path: "Tests/LinkageProbes/jxl-only"),
        .executableTarget(name: "linkage-probe-svg", dependencies: ["PipelineCore", "CodersSVG"], path: "Tests/LinkageProbes/svg-only"),
        .executableTarget(name: "linkage-probe-http", dependencies: ["PipelineCore", "LoaderHTTP"], path: "Tests/LinkageProbes/http-only"),

        // Shared by the test targets: the corpus in Tests/Fixtures, reference PNGs, an HTTPS server,
        // colour-tagged files made with lcms2.
        // The plain HTTP server is the kit's (PipelineConformance), so one piece serves both.
        .target(name: "TestSupport", dependencies: [
            "CZlib", "CLCMS2", "PipelineConformance", "ImagePipe", .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/TestSupport"),
        // zlib for TestSupport's reference-PNG reader.
        .systemLibrary(name: "CZlib", path: "Tests/CZlib"),
        .testTarget(name: "PipelineCoreTests", dependencies: [
            "PipelineCore", "ImagePipe", "TestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ImagePipeTests", dependencies: [
            "ImagePipe", "PipelineCore", "TestSupport", "cache-stress", .product(name: "Logging", package: "swift-log"),
            .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        ]),
        .testTarget(name: "ImagePipeTargetsTests", dependencies: ["ImagePipeTargets", "ImagePipe", "PipelineCore", "TestSupport"]),
        .testTarget(name: "PipelineConformanceTests", dependencies: [
            "PipelineConformance", "ImagePipe", "PipelineCore", "TestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "CodersPNGTests", dependencies: ["CodersPNG", "CPNGShim", "CZlib", "TestSupport"]),
        .testTarget(name: "CodersJPEGTests", dependencies: ["CodersJPEG", "CodersPNG", "TestSupport"]),
        .testTarget(name: "CodersWebPTests", dependencies: ["CodersWebP", "CWebP", "PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersAVIFTests", dependencies: ["CodersAVIF", "CAVIFShim", "PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersHEIFTests", dependencies: ["CodersHEIF", "PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersJXLTests", dependencies: ["CodersJXL", "PipelineCore", "PipelineConformance", "TestSupport"]),
        .testTarget(name: "CodersSVGTests", dependencies: ["CodersSVG", "PipelineCore", "PipelineConformance", "TestSupport"]),
        .testTarget(name: "CodersGIFTests", dependencies: ["CodersGIF", "ImagePipe", "PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersTIFFTests", dependencies: ["CodersTIFF", "PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersBMPTests", dependencies: ["CodersBMP", "CodersPNG", "PipelineCore", "TestSupport"]),
        .testTarget(name: "ColorConverterLCMSTests", dependencies: [
            "ColorConverterLCMS", "CodersJPEG", "CJPEGShim", "CodersPNG", "CodersWebP", "PipelineCore", "TestSupport",
        ]),
        .testTarget(name: "LoaderFileTests", dependencies: ["LoaderFile", "ImagePipe", "TestSupport"]),
        .testTarget(name: "LoaderHTTPTests", dependencies: ["LoaderHTTP", "ImagePipe", "PipelineConformance", "TestSupport"]),
        // The kit run against every built-in coder, loader, cache and transformer.
        .testTarget(name: "ConformanceTests", dependencies: [
            "PipelineConformance", "ImagePipe", "PipelineCore", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF", "CodersAVIF",
            "CodersHEIF", "CodersTIFF", "CodersBMP", "LoaderFile", "LoaderHTTP", "TestSupport",
        ]),
        .testTarget(name: "ProductLinkageTests", dependencies: [
            "linkage-probe-png", "linkage-probe-avif", "linkage-probe-heif", "linkage-probe-tiff", "linkage-probe-bmp", "linkage-probe-jxl",
            "linkage-probe-svg", "linkage-probe-http", "TestSupport",
        ]),
        // Start their own redis-server (and nutcracker) on free loopback ports.
        .testTarget(name: "CacheRedisTests", dependencies: [
            "CacheRedis", "PipelineConformance", "PipelineCore", "TestSupport",
            .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "MetricsTestKit", package: "swift-metrics"),
        ]),
        // Runs the built `imagepipe` executable end to end.
        .testTarget(name: "ImageServerTests", dependencies: [
            "ImageServer", "PipelineCore", "PipelineConformance", "TestSupport",
            .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Service"])),
            .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["Service"])),
        ]),
        .testTarget(name: "imagepipeTests", dependencies: [
            "imagepipe", "imagepipe-serve", "ToolSupport", "ImagePipe", "ImageServer", "CodersJPEG", "CodersPNG", "CodersWebP", "CodersGIF", "LoaderFile", "PipelineConformance", "TestSupport",
            "CZlib",
        ]),

        // What the fuzz targets (the package in Fuzz/, built with sanitizers by `make fuzz`) do with
        // one input, built here without sanitizers so `FuzzRegressionTests` replays every finding kept
        // in Tests/Fixtures/fuzz. Not a product: users never build it.
        .target(name: "FuzzHarness", dependencies: [
            "PipelineCore", "ImagePipe", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF", "CodersAVIF", "CodersHEIF", "CodersTIFF",
            "CodersBMP", "LoaderFile", "CodersJXL", "CodersSVG",
        ], path: "Fuzz/Sources/FuzzHarness"),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzHarness", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Zero warnings is a rule: every warning in the project's own Swift and C code fails the build
// (SwiftPM does not apply this to remote dependencies).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
    target.cSettings = (target.cSettings ?? []) + [.treatAllWarnings(as: .error)]
}
