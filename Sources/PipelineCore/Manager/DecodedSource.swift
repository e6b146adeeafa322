import Foundation

/// A decoded image and the bytes it came from: what a shared decode hands its joiners.
struct DecodedSource: Sendable {
    var image: Image
    var data: Data?
}
