// swift-tools-version:6.2
// ImagePipe: a small core of protocols and registries (`PipelineCore`) and plugins around it.
// Each module is its own product, so a user depends only on what it needs.
import PackageDescription

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "PipelineCore", targets: ["PipelineCore"]),
        .library(name: "CodersPNG", targets: ["CodersPNG"]),
        .library(name: "CodersJPEG", targets: ["CodersJPEG"]),
        .library(name: "CodersWebP", targets: ["CodersWebP"]),
        .library(name: "CodersGIF", targets: ["CodersGIF"]),
        .library(name: "LoaderFile", targets: ["LoaderFile"]),
        .library(name: "LoaderHTTP", targets: ["LoaderHTTP"]),
        .library(name: "ColorConverterLCMS", targets: ["ColorConverterLCMS"]),
        .library(name: "PipelineConformance", targets: ["PipelineConformance"]),
        .executable(name: "imagepipe", targets: ["imagepipe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // 1.11 brought `LogHandler.log(event:)`, which handlers implement now.
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
    ],
    targets: [
        // The core: no C dependencies. swift-log carries what the library cannot do but carries on
        // without (a failed cache write) to the application's logging, silent unless it asks.
        .target(name: "PipelineCore", dependencies: [.product(name: "Logging", package: "swift-log")]),

        // PNG on libpng. The shim holds libpng's setjmp/longjmp error handling, so no longjmp ever
        // crosses a Swift frame.
        // Writing skips libpng: the shim frames the PNG itself and compresses IDAT with libdeflate,
        // because zlib's deflate was most of an encode's time.
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .target(name: "CPNGShim", dependencies: ["CPNG", "CDeflate"]),
        .target(name: "CodersPNG", dependencies: ["PipelineCore", "CPNGShim", "CDeflate"]),
        // JPEG on libjpeg-turbo, shaped the same way.
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .target(name: "CJPEGShim", dependencies: ["CJPEG"]),
        .target(name: "CodersJPEG", dependencies: ["PipelineCore", "CJPEG", "CJPEGShim"]),
        // libwebp, libwebpdemux and libwebpmux, reached through their system headers.
        .systemLibrary(name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .target(name: "CodersWebP", dependencies: ["PipelineCore", "CWebP"]),
        // giflib ships no .pc file; the module map links -lgif.
        .systemLibrary(name: "CGIF", path: "Sources/CGIF", providers: [.apt(["libgif-dev"])]),
        .target(name: "CodersGIF", dependencies: ["PipelineCore", "CGIF"]),

        .target(name: "LoaderFile", dependencies: ["PipelineCore"]),
        // libcurl through pkg-config, plus one C file for its varargs entry points.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .target(name: "LoaderHTTP", dependencies: ["PipelineCore", "CCurl", "CCurlShim"]),

        // Colour management on Little CMS 2: ICC profiles to sRGB. lcms2 reports errors through a
        // callback and returns, so no C shim is needed.
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .target(name: "ColorConverterLCMS", dependencies: ["PipelineCore", "CLCMS2"]),

        // The conformance kit plugin authors run on their coders, loaders, caches and transformers.
        .target(name: "PipelineConformance", dependencies: ["PipelineCore"]),

        // The command line tool.
        .executableTarget(name: "imagepipe", dependencies: [
            "PipelineCore", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF", "LoaderFile", "LoaderHTTP",
            "ColorConverterLCMS",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Helper process for the disk cache's crash (kill -9) and two-process tests.
        .executableTarget(name: "cache-stress", dependencies: ["PipelineCore"]),

        // Shared by the test targets: the corpus in Tests/Fixtures, reference PNGs, an HTTPS server,
        // colour-tagged files made with lcms2.
        // The plain HTTP server is the kit's (PipelineConformance), so one piece serves both.
        .target(name: "TestSupport", dependencies: ["CZlib", "CLCMS2", "PipelineConformance"], path: "Tests/TestSupport"),
        // zlib for TestSupport's reference-PNG reader.
        .systemLibrary(name: "CZlib", path: "Tests/CZlib"),
        .testTarget(name: "PipelineCoreTests", dependencies: [
            "PipelineCore", "TestSupport", "cache-stress", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "PipelineConformanceTests", dependencies: ["PipelineConformance", "PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersPNGTests", dependencies: ["CodersPNG", "CPNGShim", "CZlib", "TestSupport"]),
        .testTarget(name: "CodersJPEGTests", dependencies: ["CodersJPEG", "CodersPNG", "TestSupport"]),
        .testTarget(name: "CodersWebPTests", dependencies: ["CodersWebP", "CWebP", "PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersGIFTests", dependencies: ["CodersGIF", "PipelineCore", "TestSupport"]),
        .testTarget(name: "ColorConverterLCMSTests", dependencies: [
            "ColorConverterLCMS", "CodersJPEG", "CJPEGShim", "CodersPNG", "CodersWebP", "PipelineCore", "TestSupport",
        ]),
        .testTarget(name: "LoaderFileTests", dependencies: ["LoaderFile", "TestSupport"]),
        .testTarget(name: "LoaderHTTPTests", dependencies: ["LoaderHTTP", "PipelineConformance", "TestSupport"]),
        // The kit run against every built-in coder, loader, cache and transformer.
        .testTarget(name: "ConformanceTests", dependencies: [
            "PipelineConformance", "PipelineCore", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF",
            "LoaderFile", "LoaderHTTP", "TestSupport",
        ]),
        // Runs the built `imagepipe` executable end to end.
        .testTarget(name: "imagepipeTests", dependencies: ["imagepipe", "CodersJPEG", "CodersPNG", "PipelineConformance", "TestSupport"]),

        // What the fuzz targets (the package in Fuzz/, built with sanitizers by `make fuzz`) do with
        // one input, built here without sanitizers so `FuzzRegressionTests` replays every finding kept
        // in Tests/Fixtures/fuzz. Not a product: users never build it.
        .target(name: "FuzzHarness", dependencies: [
            "PipelineCore", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF", "LoaderFile",
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
