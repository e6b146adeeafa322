import Foundation

/// A decoded image, the bytes it came from and what their source said about them: what a shared
/// decode hands its joiners, with the load and decode stages of `metrics` filled in.
struct DecodedSource: Sendable {
    var image: Image
    var data: Data?
    var validators: CacheValidators?
    var metrics = ImageTaskMetrics()
}
