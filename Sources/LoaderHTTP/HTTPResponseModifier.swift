/// Changes a response before it is validated, or refuses it (nil), which fails the load with
/// `invalidResponse`. SDWebImage's `SDWebImageDownloaderResponseModifier`.
public struct HTTPResponseModifier: Sendable {
    public let modify: @Sendable (HTTPLoadResponse) -> HTTPLoadResponse?
    public init(_ modify: @escaping @Sendable (HTTPLoadResponse) -> HTTPLoadResponse?) { self.modify = modify }
}
