import Foundation
import PipelineCore

/// Rewrites a request's options and context before the manager acts on them (SDWebImage's
/// `SDWebImageOptionsProcessor`), e.g. to add `.retryFailed` for one host. Nil keeps them as they were.
public struct ImageOptionsProcessor: Sendable {
    public let process: @Sendable (URL?, ImageOptions, ImageContext) -> (options: ImageOptions, context: ImageContext)?
    public init(_ process: @escaping @Sendable (URL?, ImageOptions, ImageContext) -> (options: ImageOptions, context: ImageContext)?) {
        self.process = process
    }
}
