/// A load as the manager can compare it before handing it to a loader: the URL and the loader. A
/// load carrying closures (a request or response modifier, a decryptor) or a cached image to
/// revalidate cannot be compared with another, so `unique` sets it apart and it never shares.
/// A load that may stop after the first frame (`FirstFrameLoad`) brings back other bytes than a
/// whole one: `firstFrameOnly` keeps the two apart.
import PipelineCore

struct LoaderRequest: Hashable, Sendable {
    let url: String
    let loader: String
    let unique: UInt64?
    var firstFrameOnly = false
}
