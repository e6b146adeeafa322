// swift-tools-version:6.0
// Benchmark of CodersPNG and CodersJPEG against a C program calling libpng and libjpeg directly.
// A separate package so the main build never compiles it; run scripts/bench/coders-png-jpeg.sh.
import PackageDescription

let package = Package(
    name: "CodersPNGJPEGBenchmark",
    dependencies: [.package(name: "ImagePipe", path: "../..")],
    targets: [
        .executableTarget(
            name: "coders-bench",
            dependencies: [
                .product(name: "CodersPNG", package: "ImagePipe"),
                .product(name: "CodersJPEG", package: "ImagePipe"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
