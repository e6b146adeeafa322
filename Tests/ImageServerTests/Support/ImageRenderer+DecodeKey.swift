@testable import ImageServer
@testable import PipelineCore

extension ImageRenderer {
    /// The key of the manager's decode stage a job's request waits on, to see requests share it.
    func decodeKey(for job: Job) -> DecodeKey {
        let (options, context) = requestParameters(for: job)
        let download = DownloadKey(url: job.source.absoluteString, loader: String(reflecting: SourceLoader.self), flags: 0, unique: nil)
        return DecodeKey(download: download, options: ImageDecodeOptions(options: options, context: context, cacheKey: manager.cacheKey(for: job.source)))
    }
}
