import ArgumentParser
import Foundation
import PipelineCore
import ToolSupport

/// `imagepipe info`: what each source is: format, stored size, frames, timing, orientation, pixels.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe images: format, stored size, frames, loop count, durations, orientation, pixel format, colour model."
    )

    @Argument(help: "http(s) URLs, file:// URLs or paths.")
    var sources: [String]

    @OptionGroup var network: NetworkOptions

    @OptionGroup var limits: DecodeLimitOptions

    @OptionGroup var warningOptions: WarningOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if sources.isEmpty { throw ValidationError("give at least one SOURCE") }
    }

    func run() async throws {
        outputOptions.bootstrapLogging()
        PipelineSetup.registerPlugins()
        try network.apply()
        var failed = false
        for source in sources {
            var warnings: [ImageDecodeWarning] = []
            do {
                let line = try await describe(source, warnings: &warnings)
                Console.out(outputOptions.json ? line.json.text : line.text)
            } catch {
                failed = true
                let message = DecodeLimitOptions.describe(error)
                if outputOptions.json {
                    var line = JSONLine()
                    line.add("source", source)
                    line.add("warnings", DecodeWarnings.json(warnings))
                    line.add("error", message)
                    Console.out(line.text)
                }
                Console.err("imagepipe: \(source): \(message)")
            }
        }
        if failed { throw ExitCode(1) }
    }

    struct Description {
        var json = JSONLine()
        var text = ""
    }

    /// An ICC profile's own name ("Display P3"); nil without an ICC profile (PNG's sRGB and gAMA
    /// chunks are not one) or when lcms2 cannot read its description.
    func iccProfileDescription(_ profile: ImageColorProfile?) -> String? {
        guard let profile, profile.iccData != nil else { return nil }
        return ImageColorConvertersManager.shared.profileDescription(profile)
    }

    /// Decodes as the pipeline does, within `coders.decodeMemoryBudget`, keeping the source's colour
    /// profile so it can be named, and its EXIF and XMP as the file has them. Info composites the
    /// first frame only and reads the others' timing from the header, so an animation over the
    /// budget for processing every frame is still described.
    static func decode(_ data: Data, limits: ImageDecodeOptions = ImageDecodeOptions(), coders: ImageCodersManager = .shared) async throws -> Image {
        var options = limits
        options.maxAnimationPixels = .max
        options.colorHandling = .keepSourceProfile
        options.metadataHandling = .keepAll
        return try await coders.decodeImage(data, options: options) { work in try work() }
    }

    /// The description of one source; `warnings` gets the decoder's warnings (printed here) even
    /// when `--fail-on-warning` then refuses the source.
    func describe(_ source: String, warnings: inout [ImageDecodeWarning]) async throws -> Description {
        guard let url = SourceParser.url(for: source) else { throw ImagePipeError.invalidURL(source) }
        let loaded = try await ImageLoadersManager.shared.load(url, options: [], context: ImageContext(), progress: nil)
        let image = try await Self.decode(loaded.data, limits: limits.decodeOptions())
        let (hasExif, hasXmp) = (image.metadata.exif != nil, image.metadata.xmp != nil)
        warnings = image.metadata.warnings
        DecodeWarnings.report(warnings, source: source)
        try warningOptions.check(warnings)
        let format = image.format == .undefined ? ImageFormat.detect(in: loaded.data) : image.format
        // Durations as players show them: the coder has already applied its format's clamping rule.
        let durations = (0..<image.frameCount).map { Int((image.duration(at: $0) * 1000).rounded()) }
        var result = Description()
        result.json.add("source", source)
        result.json.add("format", format.identifier)
        result.json.add("width", image.pixelSize.width)
        result.json.add("height", image.pixelSize.height)
        result.json.add("frames", image.frameCount)
        result.json.add("loopCount", image.loopCount)
        result.json.add("durationsMs", .ints(image.isAnimated ? durations : []))
        result.json.add("orientation", image.orientation.rawValue)
        result.json.add("hasAlpha", image.hasAlpha)
        result.json.add("pixelFormat", image.pixelFormat.rawValue)
        result.json.add("colorModel", image.metadata.colorModel)
        result.json.add("iccProfile", iccProfileDescription(image.metadata.colorProfile))
        result.json.add("hasExif", hasExif)
        result.json.add("hasXmp", hasXmp)
        result.json.add("warnings", DecodeWarnings.json(warnings))
        var text = "\(TerminalEscaping.escape(source)): \(format.identifier) \(image.pixelSize) \(image.pixelFormat.rawValue)"
        // What the pixels were converted from, when the pixel format does not already say it: a
        // CMYK JPEG decodes to rgb8. (RGB, gray and JPEG's usual YCbCr go without a note.)
        if let model = image.metadata.colorModel, ![ImageColorModel.rgb, ImageColorModel.gray, ImageColorModel.ycbcr].contains(model) {
            text += " (source \(TerminalEscaping.escape(model)))"
        }
        if image.isAnimated {
            let loops = image.loopCount == 0 ? "forever" : "\(image.loopCount)x"
            text += ", \(image.frameCount) frames, loops \(loops), \(durations.reduce(0, +)) ms"
        }
        if image.orientation != .up { text += ", orientation \(image.orientation.rawValue)" }
        if let profile = iccProfileDescription(image.metadata.colorProfile) { text += ", ICC \(TerminalEscaping.escape(profile))" }
        let metadata = [hasExif ? "EXIF" : nil, hasXmp ? "XMP" : nil].compactMap { $0 }
        if !metadata.isEmpty { text += ", " + metadata.joined(separator: " and ") }
        result.text = text
        return result
    }
}
