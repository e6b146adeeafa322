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
        isDraining ? Self.text(.serviceUnavailable, "draining\n") : Self.text(.ok, "ok\n")
    }

    func metricsResponse() -> Response {
        var response = Self.text(.ok, metrics.exposition())
        response.headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return response
    }

    /// The answer to an image URL; the cache tier that gave it goes to `context.outcome`.
    func image(request: Request, context: ImageRequestContext) async throws(ServiceError) -> Response {
        let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        let (job, negotiated) = try admit(request: request, target: target)
        var headers = HTTPFields()
        headers[.cacheControl] = "public, max-age=\(configuration.cacheTTL)"
        if negotiated { headers[.vary] = "Accept" }
        let ifNoneMatch = request.headers[.ifNoneMatch]
        if let ifNoneMatch, let etag = renderer.knownETag(for: job), Self.matches(ifNoneMatch, etag) {
            headers[.eTag] = etag
            context.outcome.tier = "memory"
            return Response(status: .notModified, headers: headers)
        }
        let (rendered, tier) = try await renderBounded(job, channel: context.channel)
        if tier != .origin { metrics.countCacheHit(tier: tier.rawValue) }
        context.outcome.tier = tier.rawValue
        headers[.eTag] = rendered.etag
        if let ifNoneMatch, Self.matches(ifNoneMatch, rendered.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = rendered.format.mimeType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: rendered.data)))
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

    static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
