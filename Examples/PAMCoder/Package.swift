// swift-tools-version:6.2
// An ImagePipe plugin written the way an outside author would: its own package, depending on
// ImagePipe's `PipelineCore` for the coder protocol and on `PipelineConformance` (tests only) to
// prove it keeps the pipeline's contracts. Only those two ImagePipe modules are built.
import PackageDescription

let package = Package(
    name: "PAMCoder",
    products: [
        .library(name: "PAMCoder", targets: ["PAMCoder"]),
    ],
    dependencies: [
        // A real plugin names a URL and a version here, with the trait that brings the server stack off:
        // .package(url: "https://…/ImagePipe", from: "0.1.0", traits: []).
        .package(name: "ImagePipe", path: "../..", traits: []),
    ],
    targets: [
        .target(name: "PAMCoder", dependencies: [.product(name: "PipelineCore", package: "ImagePipe")],
                swiftSettings: [.treatAllWarnings(as: .error)]),
        .testTarget(name: "PAMCoderTests", dependencies: [
            "PAMCoder",
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "PipelineConformance", package: "ImagePipe"),
        ], swiftSettings: [.treatAllWarnings(as: .error)]),
    ],
    swiftLanguageModes: [.v6]
)
