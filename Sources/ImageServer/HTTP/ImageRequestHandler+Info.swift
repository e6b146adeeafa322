import Foundation
import Hummingbird
import NIOCore
import PipelineCore

extension ImageRequestHandler {
    /// `GET /info/{signature}/{options}/{source}`: the source described as JSON (`ImageInfo`),
    /// signed as image URLs are, over the path after the signature, and checked in the same order.
    /// The options are read (a bad one is a 404) but describe nothing: the source is described as
    /// it is, held to its source limits (the server's, or its `msr:` where allowed). Fetched
    /// holding a place and decoded holding a worker, within the request deadline.
    func info(request: Request, context: ImageRequestContext) async throws(ServiceError) -> Response {
        let (url, source) = try admitURL(target: String((prefix.strip(request.uri.path) ?? request.uri.path).dropFirst("/info".count)))
        let (renderer, limiter, metrics, maxPixels) = (self.renderer, self.limiter, self.metrics, url.options.limits.maxSourcePixels)
        let description = try await bounded(channel: context.channel) {
            try await Self.limited(limiter, metrics) { admission in try await renderer.describe(source, maxPixels: maxPixels, admission: admission) }
        }
        context.outcome.tier = ImageRenderer.Tier.origin.rawValue
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = cacheControl(expires: url.options.expires)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: description.json)))
    }
}

extension ImageRenderer {
    /// `source` fetched holding `admission`'s place, then decoded and described holding a worker.
    func describe(_ source: URL, maxPixels: Int, admission: WorkLimiter.Admission) async throws(ServiceError) -> ImageInfo {
        let loaded = try await fetch(source)
        let (coders, options) = (self.coders, ImageInfo.decodeOptions(maxPixels: maxPixels))
        do {
            return try await admission.process {
                try await coders.decodeImage(loaded.data, options: options) { decode in
                    try await CPUWorkQueue.runOffPool { try ImageInfo(image: try decode(), data: loaded.data) }
                }
            }
        } catch let error as ServiceError {
            throw error
        } catch let error as ImagePipeError {
            throw ServiceError(error)
        } catch {
            throw .cancelled
        }
    }
}
