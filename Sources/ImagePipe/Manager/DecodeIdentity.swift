/// Decodes are shared when they decode the same download with equal decode options.
import PipelineCore

struct DecodeIdentity: Hashable, Sendable {
    let download: DownloadIdentity<LoaderRequest>
    let options: ImageDecodeOptions
}
