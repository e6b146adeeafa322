import ArgumentParser
import Foundation
import ImagePipe
import PipelineCore

/// `imagepipe convert IN OUT`: one image to another format, size or shape. OUT's extension picks the
/// format; animations stay animated in GIF and WebP unless `--frame` picks one frame.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert one image; OUT's extension (\(ImageOutput.writableExtensions)) picks the format."
    )

    @Argument(help: "An http(s) URL, file:// URL or path.")
    var input: String

    @Argument(help: "The file to write.")
    var output: String

    @OptionGroup var processing: ImageProcessingOptions

    @Option(name: .long, help: "Write only this frame of an animation (0-based, at most \(WholeNumberOption.frame.upperBound)).", transform: WholeNumberOption.parser(WholeNumberOption.frame))
    var frame: Int?

    @OptionGroup var warningOptions: WarningOptions

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard ImageOutput.format(forPath: output) != nil else {
            throw ValidationError("OUT must end in \(ImageOutput.writableExtensions)")
        }
    }

    func run() async throws {
        outputOptions.bootstrapLogging()
        let manager = PipelineSetup.manager(cacheDirectory: nil).manager
        guard let format = ImageOutput.format(forPath: output) else { throw ExitCode(2) }
        let outputURL = URL(fileURLWithPath: output)
        do {
            try ImageOutput.requireFolder(of: outputURL)
            guard let url = SourceParser.url(for: input) else { throw ImagePipeError.invalidURL(input) }
            var context = try processing.context()
            context[.storeCacheType] = ImageCacheType.none
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
            try ImageOutput.write(data, to: outputURL)
            if outputOptions.json {
                var line = JSONLine()
                line.add("source", input)
                line.add("output", output)
                line.add("format", format.identifier)
                line.add("width", upright.pixelSize.width)
                line.add("height", upright.pixelSize.height)
                line.add("frames", frame == nil && format.supportsAnimation ? upright.frameCount : 1)
                line.add("bytes", data.count)
                line.add("warnings", DecodeWarnings.json(result.warnings))
                Console.out(line.text)
            }
        } catch {
            Console.err("imagepipe: \(input): \((error as? ImagePipeError)?.description ?? String(describing: error))")
            throw ExitCode(1)
        }
    }
}
