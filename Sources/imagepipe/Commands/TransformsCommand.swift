import ArgumentParser
import ImagePipe

/// `imagepipe transforms`: every `--transform` spelling with its parameters' units, ranges and
/// defaults, from the transformers' descriptions. A command of its own, not help text: help text is
/// built whenever the tool starts, and this list costs more than the rest of a start-up.
struct TransformsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transforms",
        abstract: "List the --transform specs of fetch and convert, with their parameters."
    )

    func run() {
        print(TransformerSpec.builtIn.help)
    }
}
