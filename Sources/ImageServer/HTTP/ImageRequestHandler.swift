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
    /// What every URL's options start from: the configuration's per-option defaults and limits.
    let optionDefaults: ProcessingOptions
    let policy: SourcePolicy
    /// Where the main port's routes live; taken off a path before anything reads it.
    let prefix: PathPrefix
    let busters: ValidatorBusters
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
        verifier = URLSignatureVerifier(
            keys: configuration.signingKeys, allowsUnsigned: configuration.allowsUnsigned, signatureSize: configuration.signatureSize,
            trusted: configuration.trustedSignatures)
        prefix = PathPrefix(configuration.pathPrefix)
        busters = ValidatorBusters(etag: configuration.etagBuster, lastModified: configuration.lastModifiedBuster)
        presets = Dictionary(configuration.presets.map { ($0.name, $0.segments) }, uniquingKeysWith: { $1 })
        optionDefaults = Self.optionDefaults(configuration)
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
        let (admitted, url, negotiated) = try admit(request: request, outcome: context.outcome)
        if url.options.raw { return try await raw(admitted, request: request, channel: context.channel) }
        let conditions = ConditionalRequest(
            headers: request.headers, usesETag: configuration.usesETag, usesLastModified: configuration.usesLastModified)
        var job = await renderer.withPurgeGeneration(admitted)
        var headers = HTTPFields()
        headers[.cacheControl] = cacheControl(expires: url.options.expires)
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        if negotiated { headers[.vary] = "Accept" }
        var forwarded: OriginConditions?
        if conditions.isConditional {
            // A result this server holds answers as its 200 would, without asking the origin;
            // otherwise the origin is asked, and its 304 is answered unrendered (imgproxy's way).
            if let cached = renderer.cachedResult(for: job) {
                let etag = busters.etag(cached.etag)
                let lastModified = busters.lastModified(cached.lastModified ?? renderer.loader.validators.value(forKey: job.source.absoluteString)?.lastModified)
                if conditions.isNotModified(etag: etag, lastModified: lastModified) {
                    setValidators(&headers, etag: etag, lastModified: lastModified)
                    context.outcome.tier = "memory"
                    return Response(status: .notModified, headers: headers)
                }
            } else {
                forwarded = OriginConditions(
                    request: request.headers, key: job.key(defaultQuality: configuration.defaultQuality), busters: busters,
                    usesETag: configuration.usesETag, usesLastModified: configuration.usesLastModified)
                job.originConditions = forwarded?.headers ?? [:]
            }
        }
        let (rendered, tier): (RenderedImage, ImageRenderer.Tier)
        do throws(ServiceError) {
            (rendered, tier) = try await renderBounded(job, channel: context.channel)
        } catch {
            if error == .notModified {
                setValidators(&headers, etag: forwarded?.answeringETag, lastModified: nil)
                context.outcome.tier = "origin"
                return Response(status: .notModified, headers: headers)
            }
            guard error.isFetchFailure, let fallback = configuration.fallbackImage else { throw error }
            return try await answerFallback(fallback, job: job, url: url, failure: error, headers: headers, channel: context.channel)
        }
        if tier != .origin { metrics.countCacheHit(tier: tier.rawValue) }
        context.outcome.tier = tier.rawValue
        // The origin's Last-Modified, while this server still knows it, as imgproxy passes it on.
        let lastModified = busters.lastModified(rendered.lastModified ?? renderer.loader.validators.value(forKey: job.source.absoluteString)?.lastModified)
        let etag = busters.etag(rendered.etag)
        setValidators(&headers, etag: etag, lastModified: lastModified)
        if conditions.isNotModified(etag: etag, lastModified: lastModified) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = rendered.format.mimeType
        headers[.contentDisposition] = Self.contentDisposition(url: url, format: rendered.format)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: rendered.data)))
    }

    /// `ETag` and `Last-Modified`, each while its setting is on.
    private func setValidators(_ headers: inout HTTPFields, etag: String?, lastModified: String?) {
        if configuration.usesETag, let etag { headers[.eTag] = etag }
        if configuration.usesLastModified, let lastModified { headers[.lastModified] = lastModified }
    }

    /// imgproxy's order (after `admitURL`'s): the watermark, then the format.
    private func admit(request: Request, outcome: RequestOutcome) throws(ServiceError) -> (ImageRenderer.Job, ProcessingURL, negotiated: Bool) {
        let (url, source) = try admitURL(target: prefix.strip(request.uri.path) ?? request.uri.path, outcome: outcome)
        var options = url.options
        // Without a watermark image `wm:` does nothing, and costs nothing.
        if renderer.watermark == nil { options.watermark.opacity = 0 }
        var format: ImageFormat?
        if let name = url.options.format, !url.options.raw {
            guard let writable = renderer.formats.named(name) else {
                throw ServiceError(status: 422, reason: "the server cannot write \(ProcessingURL.printable(name)) images")
            }
            format = writable
        }
        var skip = url.options.skipProcessing.compactMap(ImageFormat.named).filter { format == nil || $0 == format }
        if format == OutputFormats.svgPassThrough, !skip.contains(.svg) { skip.append(.svg) }
        // `Accept` decides when the URL names no format, or over the URL's with an enforced one.
        let formats = renderer.formats
        let negotiates = format == nil ? !formats.automatic.isEmpty : !formats.enforced.isEmpty
        if negotiates, let chosen = formats.negotiated(accept: request.headers[.accept], among: format == nil ? formats.automatic : formats.enforced) {
            format = chosen
        }
        let job = ImageRenderer.Job(
            source: source, options: options, format: format, skipProcessing: skip,
            watermark: options.watermark.opacity > 0 ? renderer.watermark?.digest : nil)
        return (job, url, negotiates)
    }

    /// imgproxy's order: the signature over the path as sent (before any option is read, so an
    /// unsigned caller learns nothing about the parser), then the options and source, then the
    /// source policy. `target` is the request's path (`/info`'s without `/info`); the source, once
    /// read, goes to `outcome` for the access log.
    func admitURL(target: String, outcome: RequestOutcome? = nil) throws(ServiceError) -> (ProcessingURL, URL) {
        let url: ProcessingURL
        do {
            let path = try ImagePath(target: target)
            if case .refused(let reason) = verifier.check(signature: path.signature, path: path.path) {
                throw ServiceError.forbidden(reason)
            }
            url = try ProcessingURL(path: path.path, settings: urlSettings())
        } catch let error as ProcessingURL.Malformed {
            throw ServiceError(status: error.status, reason: error.reason)
        } catch {
            throw error as? ServiceError ?? .internalError
        }
        outcome?.source = url.source
        do {
            return (url, try policy.resolve(url.source))
        } catch {
            switch error {
            case .malformed(let reason), .notAllowed(let reason): throw ServiceError(status: 404, reason: reason)
            }
        }
    }

    private func urlSettings() -> ProcessingURL.Settings {
        ProcessingURL.Settings(
            presets: presets, onlyPresets: configuration.onlyPresets, now: Int64(Date().timeIntervalSince1970),
            allowedOptions: configuration.allowedProcessingOptions, baseURL: configuration.baseURL, urlReplacements: configuration.urlReplacements,
            defaults: optionDefaults,
            allowsSecurityOptions: configuration.allowsSecurityOptions)
    }

    /// The options a URL without any has: imgproxy's, with the configuration's per-option
    /// defaults and limits.
    static func optionDefaults(_ configuration: ImageServerConfiguration) -> ProcessingOptions {
        var options = ProcessingOptions()
        options.stripMetadata = configuration.stripsMetadata
        options.keepCopyright = configuration.keepsCopyright
        options.stripColorProfile = configuration.stripsColorProfile
        options.autoRotate = configuration.autoRotates
        options.enforceThumbnail = configuration.enforcesThumbnail
        options.preserveHDR = configuration.preservesHDR
        options.returnAttachment = configuration.returnsAttachment
        options.skipProcessing = configuration.skipProcessingFormats.map { $0 == "jpg" ? "jpeg" : $0 }
        options.limits = SecurityLimits(
            maxSourcePixels: configuration.maxSourcePixels, maxSourceBytes: configuration.maxSourceBytes, maxFrames: configuration.maxFrames,
            maxFramePixels: configuration.maxAnimationFramePixels, maxResultDimension: configuration.maxResultDimension)
        return options
    }

    /// imgproxy's spelling: `max-age=` the TTL, or less when `exp:` comes sooner (it writes no
    /// `Expires`); `no-cache` for a TTL of 0 without `exp:`.
    func cacheControl(expires: Int64, ttl: Int? = nil) -> String {
        let ttl = ttl ?? configuration.cacheTTL
        guard expires > 0 else { return ttl > 0 ? "max-age=\(ttl), public" : "no-cache" }
        let maxAge = max(0, min(Int64(ttl), expires - Int64(Date().timeIntervalSince1970)))
        return "max-age=\(maxAge), public"
    }

    /// The fallback image, processed as the URL asks, in place of a source that could not be
    /// fetched: with `fallbackImageStatus` (or the failure's), the fallback's TTL and no ETag
    /// (the next request tries the source again; nothing of it is kept).
    private func answerFallback(
        _ fallback: Image, job: ImageRenderer.Job, url: ProcessingURL, failure: ServiceError, headers: HTTPFields, channel: any Channel
    ) async throws(ServiceError) -> Response {
        let (rendered, _) = try await renderBounded(job, channel: channel, fallback: fallback)
        var headers = headers
        headers[.eTag] = nil
        headers[.cacheControl] = cacheControl(expires: job.options.expires, ttl: configuration.fallbackImageTTL)
        headers[.contentType] = rendered.format.mimeType
        headers[.contentDisposition] = Self.contentDisposition(url: url, format: rendered.format)
        let status = configuration.fallbackImageStatus == 0 ? failure.status : HTTPResponse.Status(code: configuration.fallbackImageStatus)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: rendered.data)))
    }

    /// imgproxy's, on every image: an SVG or a mislabelled source opened directly runs nothing.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

    /// Printable ASCII only: an origin's header value passed on must not break ours.
    static func isHeaderSafe(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 256 && value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
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
    /// With `fallback`, that image is processed in place of the source, and nothing is looked up.
    private func renderBounded(_ job: ImageRenderer.Job, channel: any Channel, fallback: Image? = nil) async throws(ServiceError) -> (RenderedImage, ImageRenderer.Tier) {
        let rendered = job.key(defaultQuality: configuration.defaultQuality)
        if fallback == nil, let cached = renderer.memoryOutputs?.value(forKey: rendered) { return (cached, .memory) }
        // A render that asks the origin conditionally is shared only by requests asking the same.
        let conditions = job.originConditions.sorted { $0.key < $1.key }.map { "\n\($0.key): \($0.value)" }.joined()
        let key = (fallback == nil ? rendered : "fallback\n" + rendered) + conditions

        let (renderer, limiter, metrics, renders) = (self.renderer, self.limiter, self.metrics, self.renders)
        // Identical requests in flight share one render, fetch to encode, and one worker; each
        // request's deadline and disconnect only leave it, and the last to leave cancels it.
        return try await bounded(channel: channel) {
            try await renders.value(for: key) { _ in
                try await Self.limited(limiter, metrics) { admission in
                    if let fallback { return (try await renderer.renderFallback(fallback, for: job, admission: admission), .origin) }
                    return try await renderer.render(job, admission: admission)
                }
            }
        }
    }

    /// `work` within the request deadline (503 past it), cancelled when the client goes or the
    /// request is cancelled.
    func bounded<T: Sendable>(channel: any Channel, _ work: @escaping @Sendable () async throws -> T) async throws(ServiceError) -> T {
        let disconnect = disconnects.of(channel)
        let timedOut = OnceFlag()
        let task = Task { () async throws -> T in
            do {
                return try await work()
            } catch {
                // A request that left a shared render gets the coalescer's cancellation.
                throw error as? ServiceError ?? (error is ImagePipeError ? .cancelled : .internalError)
            }
        }
        let token = disconnect?.watch { task.cancel() }
        defer { if let token { disconnect?.unwatch(token) } }
        let timeout = configuration.requestTimeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            timedOut.set()
            task.cancel()
        }
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            if timedOut.isSet { throw .deadlineExceeded }
            throw error as? ServiceError ?? .internalError
        }
    }

    /// `work` with a place from the limiter (429 when the queue is full), counted as queued until
    /// it has one and in flight while it runs; `work` takes a worker from its admission.
    static func limited<T>(_ limiter: WorkLimiter, _ metrics: ServerMetrics, _ work: (WorkLimiter.Admission) async throws -> T) async throws -> T {
        metrics.queued.increment()
        do {
            return try await limiter.run { admission in
                metrics.queued.decrement()
                metrics.inFlight.increment()
                defer { metrics.inFlight.decrement() }
                return try await work(admission)
            }
        } catch let refusal as WorkLimiter.Refusal {
            metrics.queued.decrement()
            throw refusal == .queueFull ? ServiceError.tooManyRequests : ServiceError.cancelled
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
