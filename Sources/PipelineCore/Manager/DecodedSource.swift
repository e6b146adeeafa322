import Foundation

/// A decoded image, the bytes it came from and what their source said about them: what a shared
/// decode hands its joiners.
struct DecodedSource: Sendable {
    var image: Image
    var data: Data?
    var validators: CacheValidators?
}
