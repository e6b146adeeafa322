// swift-tools-version:6.0
// Benchmarks MemoryCache against Foundation's NSCache and DiskCache reads against plain file reads.
// Run with scripts/bench/run-cache-bench.sh (release build).
import PackageDescription

let package = Package(
    name: "cache-bench",
    dependencies: [.package(name: "ImagePipe", path: "../../..")],
    targets: [
        .executableTarget(
            name: "cache-bench",
            dependencies: [.product(name: "PipelineCore", package: "ImagePipe")]),
    ],
    swiftLanguageModes: [.v6]
)
