// swift-tools-version:6.0
// ImagePipe: a small core of protocols and registries (`PipelineCore`) and plugins around it.
// Each module is its own product so a user depends only on what it needs.
import PackageDescription

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "PipelineCore", targets: ["PipelineCore"]),
        .library(name: "CodersPNG", targets: ["CodersPNG"]),
        .library(name: "CodersJPEG", targets: ["CodersJPEG"]),
    ],
    targets: [
        .target(name: "PipelineCore"),
        // PNG on libpng. The shim holds libpng's setjmp/longjmp error handling, so no longjmp ever
        // crosses a Swift frame.
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(name: "CPNGShim", dependencies: ["CPNG"]),
        .target(name: "CodersPNG", dependencies: ["PipelineCore", "CPNGShim"]),
        // JPEG on libjpeg-turbo, shaped the same way.
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .target(name: "CJPEGShim", dependencies: ["CJPEG"]),
        .target(name: "CodersJPEG", dependencies: ["PipelineCore", "CJPEG", "CJPEGShim"]),
        // Shared by the test targets: reads the conformance corpus in Tests/Fixtures.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "PipelineCoreTests", dependencies: ["PipelineCore", "TestSupport"]),
        .testTarget(name: "CodersPNGTests", dependencies: ["CodersPNG", "TestSupport"]),
        .testTarget(name: "CodersJPEGTests", dependencies: ["CodersJPEG", "CodersPNG", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
