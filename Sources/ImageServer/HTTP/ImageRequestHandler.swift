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
    /// The configuration's presets by name, a later one winning.
    let presets: [String: [String]]
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
        presets = Dictionary(configuration.presets.map { ($0.name, $0.segments) }, uniquingKeysWith: { $1 })
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
        let (job, url, negotiated) = try admit(request: request)
        if url.options.raw { return try await raw(job) }
        var headers = HTTPFields()
        headers[.cacheControl] = cacheControl(expires: url.options.expires)
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
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
        headers[.contentDisposition] = Self.contentDisposition(url: url, format: rendered.format)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: rendered.data)))
    }

    /// imgproxy's order: the signature over the path as sent (before any option is read, so an
    /// unsigned caller learns nothing about the parser), then the options and source, then the
    /// source policy, then what this server cannot do yet, then the format.
    private func admit(request: Request) throws(ServiceError) -> (ImageRenderer.Job, ProcessingURL, negotiated: Bool) {
        let url: ProcessingURL
        do {
            let path = try ImagePath(target: request.uri.path)
            if case .refused(let reason) = verifier.check(signature: path.signature, path: path.path) {
                throw ServiceError.forbidden(reason)
            }
            url = try ProcessingURL(path: path.path, settings: urlSettings())
        } catch let error as ProcessingURL.Malformed {
            throw ServiceError(status: error.status, reason: error.reason)
        } catch {
            throw error as? ServiceError ?? .internalError
        }
        let source: URL
        do {
            source = try policy.resolve(url.source)
        } catch {
            switch error {
            case .malformed(let reason), .notAllowed(let reason): throw ServiceError(status: 404, reason: reason)
            }
        }
        if let option = url.options.unsupportedOption {
            throw ServiceError(status: 501, reason: "the option \(option) is not supported yet")
        }
        var format: ImageFormat?
        if let name = url.options.format, !url.options.raw {
            guard let writable = renderer.formats.named(name) else {
                throw ServiceError(status: 422, reason: "the server cannot write \(ProcessingURL.printable(name)) images")
            }
            format = writable
        }
        var skip = url.options.skipProcessing.compactMap(ImageFormat.named).filter { format == nil || $0 == format }
        if format == OutputFormats.svgPassThrough, !skip.contains(.svg) { skip.append(.svg) }
        let job = ImageRenderer.Job(
            source: source, options: url.options, format: format ?? renderer.formats.negotiated(accept: request.headers[.accept]), skipProcessing: skip)
        return (job, url, format == nil)
    }

    private func urlSettings() -> ProcessingURL.Settings {
        ProcessingURL.Settings(presets: presets, onlyPresets: configuration.onlyPresets, now: Int64(Date().timeIntervalSince1970))
    }

    /// imgproxy's spelling: `max-age=` the TTL, or less when `exp:` comes sooner (it writes no
    /// `Expires`); `no-cache` for a TTL of 0 without `exp:`.
    private func cacheControl(expires: Int64) -> String {
        guard expires > 0 else { return configuration.cacheTTL > 0 ? "max-age=\(configuration.cacheTTL), public" : "no-cache" }
        let maxAge = max(0, min(Int64(configuration.cacheTTL), expires - Int64(Date().timeIntervalSince1970)))
        return "max-age=\(maxAge), public"
    }

    /// imgproxy's, on every image: an SVG or a mislabelled source opened directly runs nothing.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

    /// `raw:1`: the source's bytes as fetched, without checks or processing. The origin's type is
    /// passed on when it names an image (imgproxy passes any); otherwise the sniffed format's, or
    /// `application/octet-stream`, so this host never serves an origin's HTML as its own.
    private func raw(_ job: ImageRenderer.Job) async throws(ServiceError) -> Response {
        let loaded = try await renderer.fetch(job.source)
        var headers = HTTPFields()
        let sniffed = ImageFormat.detect(in: loaded.data)
        headers[.contentType] =
            loaded.response?.mimeType.flatMap { $0.hasPrefix("image/") ? $0 : nil }
            ?? (sniffed == .undefined ? "application/octet-stream" : sniffed.mimeType)
        headers[.cacheControl] = cacheControl(expires: job.options.expires)
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: loaded.data)))
    }

    /// imgproxy's `Content-Disposition`: `fn:` or the source's file name without its extension
    /// (`image` when it has none), with the result's extension.
    static func contentDisposition(url: ProcessingURL, format: ImageFormat) -> String {
        var stem = url.options.filename
        if stem.isEmpty {
            var base = Substring(url.source)
            while base.hasSuffix("/") { base = base.dropLast() }
            if let slash = base.lastIndex(of: "/") { base = base[base.index(after: slash)...] }
            if let dot = base.lastIndex(of: ".") { base = base[..<dot] }
            stem = base.isEmpty ? "image" : String(base)
        }
        let ext = format == .jpeg ? "jpg" : format.identifier
        // `fn:` is the client's text: no quote may end the parameter, no control character the header.
        let quoted = stem.replacingOccurrences(of: "\"", with: "%22").filter { !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) }
        return "\(url.options.returnAttachment ? "attachment" : "inline"); filename=\"\(quoted).\(ext)\""
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
