// swift-tools-version:6.0
// ImagePipe: a small core of protocols and registries (`PipelineCore`) and plugins around it.
// Each module is its own product so a user depends only on what it needs.
import PackageDescription

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "PipelineCore", targets: ["PipelineCore"]),
        .library(name: "PipelineConformance", targets: ["PipelineConformance"]),
    ],
    targets: [
        .target(name: "PipelineCore"),
        // The conformance kit plugin authors run on their coders, loaders, caches and transformers.
        .target(name: "PipelineConformance", dependencies: ["PipelineCore"]),
        // Shared by the test targets: reads the conformance corpus in Tests/Fixtures.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "PipelineCoreTests", dependencies: ["PipelineCore", "TestSupport"]),
        .testTarget(name: "PipelineConformanceTests", dependencies: ["PipelineConformance", "PipelineCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
