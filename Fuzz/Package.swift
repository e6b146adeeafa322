// swift-tools-version:6.2
// ImagePipe's libFuzzer targets: a package of its own, depending on ImagePipe by path, so the
// sanitizer build (`make fuzz`, into `.build-fuzz/`) never touches the main build or the users of
// its libraries. The targets' logic (`Sources/FuzzHarness`) is also a target of the main package,
// where `FuzzRegressionTests` replays every finding kept in `Tests/Fixtures/fuzz` without sanitizers.
import PackageDescription

let targets = ["png", "jpeg", "webp", "gif", "avif", "heif", "tiff", "bmp", "jxl", "svg", "transform-spec", "data-url", "disk-cache-name"]

let package = Package(
    name: "ImagePipeFuzz",
    dependencies: [
        .package(name: "ImagePipe", path: "..", traits: []),
    ],
    targets: [
        .target(name: "FuzzTargets", dependencies: [
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
            .product(name: "CodersPNG", package: "ImagePipe"),
            .product(name: "CodersJPEG", package: "ImagePipe"),
            .product(name: "CodersWebP", package: "ImagePipe"),
            .product(name: "CodersGIF", package: "ImagePipe"),
            .product(name: "CodersAVIF", package: "ImagePipe"),
            .product(name: "CodersHEIF", package: "ImagePipe"),
            .product(name: "CodersTIFF", package: "ImagePipe"),
            .product(name: "CodersBMP", package: "ImagePipe"),
            .product(name: "CodersJXL", package: "ImagePipe"),
            .product(name: "CodersSVG", package: "ImagePipe"),
            .product(name: "LoaderFile", package: "ImagePipe"),
        ], path: "Sources/FuzzHarness"),
        // The prototype of libFuzzer's driver, which each target's `main` calls.
        .systemLibrary(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        // Writes the generated seed images (`FuzzSeeds`) for `Fuzz/run.sh`.
        .executableTarget(name: "fuzz-seeds", dependencies: ["FuzzTargets"]),
    ] + targets.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzTargets", "CLibFuzzer"])
    },
    swiftLanguageModes: [.v6]
)
