/// A broken promise the fuzz target noticed without a crash: an error that is not typed, an image
/// larger than its limits allowed, a cache file name that could leave its directory. The fuzzer
/// turns it into a crash (a finding); the regression tests report it as a failure.
public struct FuzzViolation: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
