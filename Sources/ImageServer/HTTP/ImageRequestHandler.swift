import Foundation
import Hummingbird
import Logging
import NIOCore
import PipelineCore
import Synchronization

/// The image endpoint and the operational ones, over the parts that decide: the grammar, the
/// signature, the source policy, the work limiter and the renderer.
final class ImageRequestHandler: Sendable {
    let configuration: ImageServerConfiguration
    let verifier: URLSignatureVerifier
    let policy: SourcePolicy
    let renderer: ImageRenderer
    let limiter: WorkLimiter
    let metrics: ServerMetrics
    let logger: Logger
    private let draining = Atomic(false)
    let renders = Coalescer<String, (RenderedImage, ImageRenderer.Tier), Never>()
    /// The open connections' disconnect signals; the application's `DisconnectHandler`s fill it.
    let disconnects = ClientDisconnects()

    init(configuration: ImageServerConfiguration, renderer: ImageRenderer, metrics: ServerMetrics, logger: Logger) {
        self.configuration = configuration
        verifier = URLSignatureVerifier(keys: configuration.signingKeys, allowsUnsigned: configuration.allowsUnsigned)
        policy = SourcePolicy(
            allowedPrefixes: configuration.allowedSources,
            localRoot: configuration.localRoot.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
        self.renderer = renderer
        limiter = WorkLimiter(workers: configuration.workers, queueSize: configuration.queueSize)
        self.metrics = metrics
        self.logger = logger
    }

    /// From now on `/health` answers 503, so a load balancer stops sending requests.
    func startDraining() { draining.store(true, ordering: .relaxed) }
    var isDraining: Bool { draining.load(ordering: .relaxed) }

    func health() -> Response {
        isDraining ? Self.text(503, "draining\n") : Self.text(200, "ok\n")
    }

    func metricsResponse() -> Response {
        var response = Self.text(200, metrics.exposition())
        response.headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return response
    }

    /// The answer to an image URL, and the cache tier that gave it.
    func image(request: Request, target: String, channel: any Channel) async -> (Response, String?) {
        let job: ImageRenderer.Job
        let negotiated: Bool
        do {
            (job, negotiated) = try admit(request: request, target: target)
        } catch {
            return (Self.error(error), nil)
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "public, max-age=\(configuration.cacheTTL)"
        if negotiated { headers[.vary] = "Accept" }
        let ifNoneMatch = request.headers[.ifNoneMatch]
        if let ifNoneMatch, let etag = renderer.knownETag(for: job), Self.matches(ifNoneMatch, etag) {
            headers[.eTag] = etag
            return (Response(status: .notModified, headers: headers), "memory")
        }
        let rendered: RenderedImage, tier: ImageRenderer.Tier
        do {
            (rendered, tier) = try await renderBounded(job, channel: channel)
        } catch {
            return (Self.error(error), nil)
        }
        if tier != .origin { metrics.countCacheHit(tier: tier.rawValue) }
        headers[.eTag] = rendered.etag
        if let ifNoneMatch, Self.matches(ifNoneMatch, rendered.etag) {
            return (Response(status: .notModified, headers: headers), tier.rawValue)
        }
        headers[.contentType] = rendered.format.mimeType
        headers[.contentLength] = String(rendered.data.count)
        return (Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: rendered.data))), tier.rawValue)
    }

    /// The grammar, the signature and the source policy, in that order; then the format.
    private func admit(request: Request, target: String) throws(ServiceError) -> (ImageRenderer.Job, negotiated: Bool) {
        let url: ProcessingURL
        do {
            url = try ProcessingURL(target: target, formats: renderer.formats.named)
        } catch {
            throw .badRequest(error.reason)
        }
        if case .refused(let reason) = verifier.check(signature: url.signature, path: url.signedPath) {
            throw .forbidden(reason)
        }
        let source: URL
        do {
            source = try policy.resolve(url.source)
        } catch {
            switch error {
            case .malformed(let reason): throw .badRequest(reason)
            case .notAllowed(let reason): throw .forbidden(reason)
            }
        }
        let format = url.options.format ?? renderer.formats.negotiated(accept: request.headers[.accept])
        return (ImageRenderer.Job(source: source, options: url.options, format: format), url.options.format == nil)
    }

    /// Renders within the request deadline, with a place and then a worker from the limiter (a
    /// memory hit needs neither), and cancels the work when the client goes.
    private func renderBounded(_ job: ImageRenderer.Job, channel: any Channel) async throws(ServiceError) -> (RenderedImage, ImageRenderer.Tier) {
        let key = job.key(defaultQuality: configuration.defaultQuality)
        if let cached = renderer.memoryOutputs?.value(forKey: key) { return (cached, .memory) }

        let disconnect = disconnects.of(channel)
        let timedOut = OnceFlag()
        let (renderer, limiter, metrics, renders) = (self.renderer, self.limiter, self.metrics, self.renders)
        // Identical requests in flight share one render, fetch to encode, and one worker; each
        // request's deadline and disconnect only leave it, and the last to leave cancels it.
        let work = Task { () async throws -> (RenderedImage, ImageRenderer.Tier) in
            do {
                return try await renders.value(for: key) { _ in
                    metrics.queued.increment()
                    do {
                        return try await limiter.run { admission in
                            metrics.queued.decrement()
                            metrics.inFlight.increment()
                            defer { metrics.inFlight.decrement() }
                            return try await renderer.render(job, admission: admission)
                        }
                    } catch let refusal as WorkLimiter.Refusal {
                        metrics.queued.decrement()
                        throw refusal == .queueFull ? ServiceError.tooManyRequests : ServiceError.cancelled
                    }
                }
            } catch {
                // A request that left the shared render gets the coalescer's cancellation.
                throw error as? ServiceError ?? (error is ImagePipeError ? .cancelled : .internalError)
            }
        }
        let token = disconnect?.watch { work.cancel() }
        defer { if let token { disconnect?.unwatch(token) } }
        let timeout = configuration.requestTimeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            timedOut.set()
            work.cancel()
        }
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await work.result
        } onCancel: {
            work.cancel()
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            if timedOut.isSet { throw .deadlineExceeded }
            throw error as? ServiceError ?? .internalError
        }
    }

    /// `If-None-Match` against a strong ETag, by the weak comparison RFC 9110 asks for there.
    static func matches(_ header: String, _ etag: String) -> Bool {
        let candidates = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return candidates.contains { $0 == "*" || $0 == etag || $0 == "W/" + etag }
    }

    static func error(_ error: ServiceError) -> Response {
        var response = text(error.status, error.reason + "\n")
        response.headers[.cacheControl] = "no-store"
        if error.status == 429 { response.headers[.retryAfter] = "1" }
        return response
    }

    static func text(_ status: Int, _ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.contentLength] = String(body.utf8.count)
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
