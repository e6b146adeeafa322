import Foundation

/// A decoded image and the bytes it came from: what a shared decode hands its joiners, with the
/// load and decode stages of `metrics` filled in.
struct DecodedSource: Sendable {
    var image: Image
    var data: Data?
    var metrics = ImageTaskMetrics()
}
