@testable import ImageServer
@testable import PipelineCore

extension ImageRenderer {
    /// The identity of the manager's decode stage a job's request waits on, to see requests share it.
    func decodeKey(for job: Job) -> DecodeIdentity {
        let (options, context) = requestParameters(for: job)
        let request = LoaderRequest(url: job.source.absoluteString, loader: String(reflecting: SourceLoader.self), unique: nil)
        return DecodeIdentity(download: DownloadIdentity(request: request, options: options),
                              options: ImageDecodeOptions(options: options, context: context, cacheKey: manager.cacheKey(for: job.source)))
    }
}
