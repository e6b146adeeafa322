// swift-tools-version:6.2
// ImagePipe as an application uses it: a batch thumbnailer, and the documentation's code blocks, each
// compiled as written. `make test-usage` (scripts/readme-snippets.sh) extracts every ```swift block of
// README.md into ReadmeSnippets/readmeNN/main.swift and of each DocC article (Sources/*/*.docc/*.md)
// into ReadmeSnippets/docc-<Catalogue>-<Page>-NN/main.swift (generated, not in git), and this package
// builds each as a program of its own.
import Foundation
import PackageDescription

let imagePipe: [Target.Dependency] = [
    "PipelineCore", "ImagePipe", "ImagePipeTargets", "CodersPNG", "CodersJPEG", "CodersWebP", "CodersGIF", "CodersAVIF", "CodersHEIF",
    "CodersJXL", "CodersSVG", "LoaderFile", "LoaderHTTP", "ColorConverterLCMS", "CacheRedis",
].map { .product(name: $0, package: "ImagePipe") }

let snippetsFolder = Context.packageDirectory + "/ReadmeSnippets"
let snippets = ((try? FileManager.default.contentsOfDirectory(atPath: snippetsFolder)) ?? [])
    .filter { $0.hasPrefix("readme") || $0.hasPrefix("docc-") }
    .sorted()

let package = Package(
    name: "Usage",
    dependencies: [
        // An application names a URL and a version here, with the trait that brings the server stack off:
        // .package(url: "https://…/ImagePipe", from: "0.1.0", traits: []).
        .package(name: "ImagePipe", path: "../..", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
    ],
    targets: [
        .executableTarget(name: "BatchThumbnailer", dependencies: [
            .product(name: "PipelineCore", package: "ImagePipe"),
            .product(name: "ImagePipe", package: "ImagePipe"),
            .product(name: "CodersPNG", package: "ImagePipe"),
            .product(name: "CodersJPEG", package: "ImagePipe"),
            .product(name: "CodersWebP", package: "ImagePipe"),
            .product(name: "CodersGIF", package: "ImagePipe"),
            .product(name: "LoaderFile", package: "ImagePipe"),
        ], swiftSettings: [.treatAllWarnings(as: .error)]),
    ] + snippets.map { name in
        .executableTarget(name: name, dependencies: imagePipe + [.product(name: "Logging", package: "swift-log")],
                          path: "ReadmeSnippets/\(name)", swiftSettings: [.treatAllWarnings(as: .error)])
    },
    swiftLanguageModes: [.v6]
)
