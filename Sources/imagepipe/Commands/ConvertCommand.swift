import ArgumentParser
import Foundation
import ImagePipe
import LoaderFile
import PipelineCore
import ToolSupport

/// `imagepipe convert IN OUT`: one image to another format, size or shape. OUT's extension (or
/// `--format`) picks the format; animations stay animated in GIF and WebP unless `--frame` picks
/// one frame. `-` is standard input as IN and standard output as OUT.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert one image; OUT's extension (\(ImageOutput.writableExtensions)) or --format picks the format."
    )

    @Argument(help: "An http(s) URL, file:// URL or path; - reads standard input.")
    var input: String

    @Argument(help: "The file to write; - writes standard output (give --format).")
    var output: String

    @Option(name: .long, help: "Output format: \(ImageOutput.writableFormatNames) (default: OUT's extension).")
    var format: String?

    @OptionGroup var processing: ImageProcessingOptions

    @Option(name: .long, help: "Write only this frame of an animation (0-based, at most \(WholeNumberOption.frame.upperBound)).", transform: WholeNumberOption.parser(WholeNumberOption.frame))
    var frame: Int?

    @OptionGroup var warningOptions: WarningOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        _ = try outputFormat()
        if output == "-" && outputOptions.json { throw ValidationError("--json and OUT - both write standard output; give a file name") }
    }

    /// `--format`, else OUT's extension.
    func outputFormat() throws -> ImageFormat {
        if let format {
            guard let known = ImageFormat.named(format), let writable = ImageOutput.writableFormats.first(where: { $0 == known }) else {
                throw ValidationError("--format must be \(ImageOutput.writableFormatNames)")
            }
            return writable
        }
        if output == "-" { throw ValidationError("writing to standard output (-) needs --format") }
        guard let format = ImageOutput.format(forPath: output) else {
            throw ValidationError("OUT must end in \(ImageOutput.writableExtensions), or give --format")
        }
        return format
    }

    func run() async throws {
        outputOptions.bootstrapLogging()
        let manager = PipelineSetup.manager(cacheDirectory: nil).manager
        guard let format = try? outputFormat() else { throw ExitCode(2) }
        let outputURL = output == "-" ? nil : URL(fileURLWithPath: output)
        do {
            if let outputURL { try ImageOutput.requireFolder(of: outputURL) }
            var context = try processing.context()
            let url: URL
            if input == "-" {
                url = StandardInputLoader.url
                context[.imageLoader] = StandardInputLoader(maxBytes: Int(clamping: FileLoaderConfiguration().maxBytes))
            } else {
                guard let sourceURL = SourceParser.url(for: input) else { throw ImagePipeError.invalidURL(input) }
                url = sourceURL
            }
            context[.storeCacheType] = ImageCacheType.none
            if frame == nil, let outputURL,
                let streamed = try StreamedConversion.convert(input, to: outputURL, as: format, processing: processing, warningOptions: warningOptions)
            {
                if outputOptions.json {
                    printJSON(format: format, size: streamed.size, frames: 1, bytes: streamed.bytes, warnings: streamed.warnings)
                }
                return
            }
            let result = try await manager.loadImage(with: url, options: [.transformAnimatedImage], context: context)
            guard let image = result.image else { throw ImagePipeError.badImageData(reason: "no image") }
            // Checked before anything is encoded or written: a refused source leaves no OUT at all.
            DecodeWarnings.report(result.warnings, source: input)
            try warningOptions.check(result.warnings)
            if let frame, frame >= image.frameCount {
                throw ImagePipeError.frameOutOfRange(index: frame, frameCount: image.frameCount)
            }
            let upright = try ImageOutput.upright(image, thumbnail: try processing.thumbnailSize())
            let data = try ImageOutput.encode(upright, originalData: result.data, as: format, frame: frame, options: processing.encodeOptions())
            if let outputURL {
                try ImageOutput.write(data, to: outputURL)
            } else {
                FileHandle.standardOutput.write(data)
            }
            if outputOptions.json {
                let frames = frame == nil && format.supportsAnimation ? upright.frameCount : 1
                printJSON(format: format, size: upright.pixelSize, frames: frames, bytes: data.count, warnings: result.warnings)
            }
        } catch {
            Console.err("imagepipe: \(input): \(DecodeLimitOptions.describe(error))")
            throw ExitCode(1)
        }
    }

    private func printJSON(format: ImageFormat, size: ImageSize, frames: Int, bytes: Int, warnings: [ImageDecodeWarning]) {
        var line = JSONLine()
        line.add("source", input)
        line.add("output", output)
        line.add("format", format.identifier)
        line.add("width", size.width)
        line.add("height", size.height)
        line.add("frames", frames)
        line.add("bytes", bytes)
        line.add("warnings", DecodeWarnings.json(warnings))
        Console.out(line.text)
    }
}
