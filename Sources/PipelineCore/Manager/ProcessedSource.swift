/// A decoded image and, when a transformer ran and succeeded, its output: what a shared transform
/// hands its joiners.
struct ProcessedSource: Sendable {
    var decoded: DecodedSource
    var transformed: Image?
}
