import ArgumentParser
import Foundation
import ImagePipe
import LoaderHTTP
import Logging
import PipelineCore
import ToolSupport

/// `--thumbnail`, `--transform`, `--quality`, `--keep-icc`, `--keep-metadata` and the decode limits,
/// shared by `fetch` and `convert`.
struct ImageProcessingOptions: ParsableArguments {
    @Option(name: [.long, .customLong("resize")], help: "Decode no larger than WxH (fit, aspect kept), e.g. 256x256; --resize is another name for it.")
    var thumbnail: String?

    @Option(name: .long, help: ArgumentHelp("Transform the image; repeat to chain in order (`imagepipe transforms` lists the specs).", valueName: "spec"))
    var transform: [String] = []

    @Option(name: .long, help: "Encode quality for lossy formats, 0–100 (default 90).", transform: WholeNumberOption.parser(WholeNumberOption.quality))
    var quality: Int?

    @Flag(name: .customLong("keep-icc"), help: "Keep the source's ICC profile: skip the conversion to sRGB and embed the profile in the output (PNG, JPEG, WebP, AVIF).")
    var keepsICCProfile = false

    @Flag(name: .customLong("keep-metadata"), help: "Keep the source's EXIF (GPS removed, orientation 1) and XMP in the output (PNG, JPEG, WebP, AVIF); stripped by default.")
    var keepsMetadata = false

    @OptionGroup var limits: DecodeLimitOptions

    func validate() throws {
        _ = try thumbnailSize()
        _ = try transformer()
    }

    func thumbnailSize() throws -> ImageSize? {
        guard let thumbnail else { return nil }
        let sides = TransformerSpec.sides
        guard let size = ImageSize(parsing: thumbnail), sides.contains(size.width), sides.contains(size.height) else {
            throw ValidationError("--thumbnail must be WxH with W and H from 1 to \(sides.upperBound), e.g. 256x256")
        }
        return size
    }

    func transformer() throws -> (any ImageTransformer)? {
        // Without specs the built-in table is never needed: building it costs every run start-up time.
        guard !transform.isEmpty else { return nil }
        do {
            return try TransformerSpec.parse(transform)
        } catch let error as TransformerSpec.ParseError {
            throw ValidationError(error.description)
        }
    }

    func encodeOptions() -> ImageEncodeOptions {
        var options = ImageEncodeOptions()
        if let quality { options.quality = Double(quality) / 100 }
        return options
    }

    /// The context a request carries for these options.
    func context() throws -> ImageContext {
        var context = ImageContext()
        context[.decodeOptions] = limits.decodeOptions()
        context[.thumbnailPixelSize] = try thumbnailSize()
        context[.imageTransformer] = try transformer()
        context[.encodeOptions] = encodeOptions()
        if keepsICCProfile { context[.colorHandling] = .keepSourceProfile }
        if keepsMetadata { context[.metadataHandling] = .keep }
        return context
    }
}

/// `--block-private-addresses`, `--allow-address`, shared by `fetch` and `info`: the HTTP loader's
/// SSRF guard, for URLs that come from someone else.
struct NetworkOptions: ParsableArguments {
    @Flag(name: .customLong("block-private-addresses"), help: "Refuse to connect to loopback, private, link-local and other non-public addresses, and this host's own (for untrusted URLs).")
    var blocksPrivateAddresses = false

    @Option(name: .customLong("allow-address"), help: ArgumentHelp("An address or CIDR range the guard lets through, e.g. 10.1.0.0/16; repeatable.", valueName: "cidr"))
    var allowedAddresses: [String] = []

    func validate() throws {
        if !allowedAddresses.isEmpty && !blocksPrivateAddresses {
            throw ValidationError("--allow-address only makes exceptions to --block-private-addresses; give both")
        }
        _ = try ranges()
    }

    func ranges() throws -> [IPAddressRange] {
        try allowedAddresses.map { text in
            guard let range = IPAddressRange(text) else {
                throw ValidationError("--allow-address '\(text)' is not an IP address or CIDR range (e.g. 10.1.0.0/16, ::1)")
            }
            return range
        }
    }

    /// Sets the guard on the HTTP loader the commands register.
    func apply(to loader: HTTPLoader = .shared) throws {
        var configuration = loader.configuration
        configuration.blocksPrivateAddresses = blocksPrivateAddresses
        configuration.allowedAddresses = try ranges()
        loader.configuration = configuration
    }
}

/// `--verbose`, `--json`.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON object per line per source on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "Log what the pipeline does to standard error.")
    var verbose = false

    func bootstrapLogging() {
        let level: Logger.Level = verbose ? .debug : .warning
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, logLevel: level) }
    }
}

/// `--fail-on-warning`, shared by `fetch`, `convert` and `info`.
struct WarningOptions: ParsableArguments {
    @Flag(name: .customLong("fail-on-warning"), help: "Fail a source whose image decoded with warnings (a truncated or damaged file): exit 1, write nothing for it.")
    var failOnWarning = false

    /// Throws `FailedOnWarning` when the flag is set and there are warnings.
    func check(_ warnings: [ImageDecodeWarning]) throws {
        if failOnWarning && !warnings.isEmpty { throw FailedOnWarning(count: warnings.count) }
    }
}

/// A SOURCE argument: an http(s), file or data URL, or a path.
enum SourceParser {
    static func url(for source: String) -> URL? {
        if let url = URL(string: source), let scheme = url.scheme?.lowercased(), ["http", "https", "file", "data"].contains(scheme) {
            return url
        }
        guard !source.isEmpty else { return nil }
        return URL(fileURLWithPath: source).standardizedFileURL
    }
}
