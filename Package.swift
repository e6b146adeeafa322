// swift-tools-version:6.0
// ImagePipe: a small core of protocols and registries (`PipelineCore`) and plugins around it.
// Each module is its own product so a user depends only on what it needs.
import PackageDescription

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "PipelineCore", targets: ["PipelineCore"]),
        .library(name: "LoaderFile", targets: ["LoaderFile"]),
        .library(name: "LoaderHTTP", targets: ["LoaderHTTP"]),
    ],
    targets: [
        .target(name: "PipelineCore"),
        .target(name: "LoaderFile", dependencies: ["PipelineCore"]),
        // libcurl through pkg-config, plus one C file for its varargs entry points.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .target(name: "LoaderHTTP", dependencies: ["PipelineCore", "CCurl", "CCurlShim"]),
        // Shared by the test targets: reads the conformance corpus in Tests/Fixtures and serves
        // HTTP on 127.0.0.1 with fault injection.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "PipelineCoreTests", dependencies: ["PipelineCore", "TestSupport"]),
        .testTarget(name: "LoaderFileTests", dependencies: ["LoaderFile", "TestSupport"]),
        .testTarget(name: "LoaderHTTPTests", dependencies: ["LoaderHTTP", "TestSupport"]),
        // scripts/bench/loader-http.sh: HTTPLoader against `curl --parallel` on a local server.
        .executableTarget(name: "LoaderHTTPBench", dependencies: ["LoaderHTTP"], path: "Benchmarks/LoaderHTTPBench"),
    ],
    swiftLanguageModes: [.v6]
)
