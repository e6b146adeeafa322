// swift-tools-version:6.0
// ImagePipe: a small core of protocols and registries (`PipelineCore`) and plugins around it.
// Each module is its own product so a user depends only on what it needs.
import PackageDescription

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "PipelineCore", targets: ["PipelineCore"]),
        .library(name: "CodersWebP", targets: ["CodersWebP"]),
        .library(name: "CodersGIF", targets: ["CodersGIF"]),
    ],
    targets: [
        .target(name: "PipelineCore"),
        // libwebp, libwebpdemux and libwebpmux, reached through their system headers.
        .systemLibrary(name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebpdemux",
                       providers: [.apt(["libwebp-dev"])]),
        // giflib ships no .pc file; the module map links -lgif.
        .systemLibrary(name: "CGIF", path: "Sources/CGIF", providers: [.apt(["libgif-dev"])]),
        .target(name: "CodersWebP", dependencies: ["PipelineCore", "CWebP"]),
        .target(name: "CodersGIF", dependencies: ["PipelineCore", "CGIF"]),
        // Shared by the test targets: reads the conformance corpus in Tests/Fixtures.
        .target(name: "TestSupport", dependencies: ["CZlib"], path: "Tests/TestSupport"),
        // zlib for TestSupport's reference-PNG reader.
        .systemLibrary(name: "CZlib", path: "Tests/CZlib"),
        .testTarget(name: "PipelineCoreTests", dependencies: ["PipelineCore", "TestSupport"]),
        // Decode-all-frames benchmark against the C libraries (scripts/bench/coders-vs-c.sh).
        .executableTarget(name: "CoderBench", dependencies: ["CodersWebP", "CodersGIF", "PipelineCore"],
                          path: "Benchmarks/CoderBench"),
        .testTarget(name: "CodersWebPTests", dependencies: ["CodersWebP", "CWebP", "PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersGIFTests", dependencies: ["CodersGIF", "PipelineCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
