// swift-tools-version:6.0
// ImagePipe: a small core of protocols and registries (`PipelineCore`) and plugins around it.
// Each module is its own product so a user depends only on what it needs.
import PackageDescription

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "PipelineCore", targets: ["PipelineCore"]),
    ],
    targets: [
        .target(name: "PipelineCore"),
        // Helper process for the disk cache's crash (kill -9) and two-process tests.
        .executableTarget(name: "cache-stress", dependencies: ["PipelineCore"]),
        // Shared by the test targets: reads the conformance corpus in Tests/Fixtures.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "PipelineCoreTests", dependencies: ["PipelineCore", "TestSupport", "cache-stress"]),
    ],
    swiftLanguageModes: [.v6]
)
