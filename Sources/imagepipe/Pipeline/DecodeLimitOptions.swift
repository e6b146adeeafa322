import ArgumentParser
import PipelineCore

/// `--max-pixels` and `--max-decode-time`, shared by `fetch`, `convert` and `info`: the decoder's
/// limits, the library's defaults unless the user raises them, and the flags a limit's error names
/// (the library's message names `ImageDecodeOptions`' fields, which a shell user cannot set).
struct DecodeLimitOptions: ParsableArguments {
    @Option(
        name: .customLong("max-pixels"),
        help: "Refuse a source of more pixels than this (default \(ImageDecodeOptions.defaultMaxPixels)).",
        transform: WholeNumberOption.parser(1...Int(Int32.max) * 16))
    var maxPixels = ImageDecodeOptions.defaultMaxPixels

    @Option(
        name: .customLong("max-decode-time"),
        help: ArgumentHelp("Stop a decode that takes longer than this many seconds; 0 for no limit (default 8).", valueName: "seconds"),
        transform: WholeNumberOption.parser(0...86_400))
    var maxDecodeTime = 8

    /// The decode options these limits give, the library's defaults otherwise.
    func decodeOptions() -> ImageDecodeOptions {
        var options = ImageDecodeOptions()
        options.maxPixels = maxPixels
        options.maxDecodeTime = maxDecodeTime == 0 ? nil : .seconds(maxDecodeTime)
        return options
    }

    private static let flags: [ImagePipeError.Limit: String] = [.pixels: "--max-pixels", .decodeTime: "--max-decode-time"]

    /// `error` in the tool's words: a limit these flags set names its flag.
    static func describe(_ error: any Error) -> String {
        (error as? ImagePipeError)?.description(namingSettings: flags) ?? String(describing: error)
    }
}
