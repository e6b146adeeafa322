import Crypto
import Foundation
import ImagePipe
import LoaderFile
import LoaderHTTP
import PipelineCore

/// The server's loader: http(s) through `HTTPLoader` (its SSRF guard on unless configured off,
/// every redirect hop held to the allow-list before it is followed), optionally behind a fleet's shared tier, and files through
/// `FileLoader` held to the local root. It notes each source's validator (its `ETag`, else a
/// digest of its bytes) so answers can carry an ETag and 304s can skip the work, and the
/// origin's `Last-Modified`, which answers pass on as imgproxy's do.
final class SourceLoader: ImageLoader {
    let remote: any ImageLoader
    /// The origins themselves, past any shared tier: where a body sink's load goes (`raw:1`).
    let origin: HTTPLoader
    let file: FileLoader?
    let validators: MemoryCache<String, SourceValidator>
    let metrics: ServerMetrics
    let maxSourceBytes: Int

    init(configuration: ImageServerConfiguration, metrics: ServerMetrics, allowsRedirectTarget: @escaping @Sendable (URL) -> Bool) {
        self.metrics = metrics
        maxSourceBytes = configuration.maxSourceBytes
        var httpConfiguration = HTTPLoaderConfiguration()
        httpConfiguration.blocksPrivateAddresses = !configuration.allowsPrivateSources
        httpConfiguration.maxResponseBytes = Int64(configuration.maxSourceBytes)
        httpConfiguration.maxConcurrentDownloads = max(6, configuration.workers * 2)
        httpConfiguration.timeout = Double(configuration.requestTimeout.components.seconds) + 1
        httpConfiguration.connectTimeout = min(httpConfiguration.timeout, 5)
        httpConfiguration.redirectPolicy = allowsRedirectTarget
        origin = HTTPLoader(configuration: httpConfiguration)
        remote = configuration.sharedSources?(origin, metrics.factory) ?? origin
        file = configuration.localRoot.map { root in
            FileLoader(configuration: FileLoaderConfiguration(allowedRoots: [root], maxBytes: Int64(configuration.maxSourceBytes)))
        }
        validators = MemoryCache(costLimit: MemoryCharge.validatorLimit(memoryLimit: configuration.memoryLimit), countLimit: 100_000)
    }

    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool {
        url.isFileURL ? file?.canLoad(url, options: options, context: context) ?? false : remote.canLoad(url, options: options, context: context)
    }

    func load(
        _ url: URL, options: ImageOptions, context: ImageContext,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult {
        let result: ImageLoadResult
        let start = ContinuousClock.now
        defer { metrics.fetchDuration.recordNanoseconds(ServerMetrics.nanoseconds(ContinuousClock.now - start)) }
        if url.isFileURL {
            guard var file else { throw ImagePipeError.invalidURL(url.absoluteString) }
            if let limit = context[.sourceByteLimit] {
                file = FileLoader(configuration: FileLoaderConfiguration(allowedRoots: file.configuration.allowedRoots, maxBytes: Int64(limit)))
            }
            result = try await file.load(url, options: options, context: context, progress: progress)
        } else if context[.bodySink] != nil {
            // The body went to the sink as it came: nothing to check or remember of it here.
            return try await origin.load(url, options: options, context: context, progress: progress)
        } else {
            var context = context
            if let limit = context[.sourceByteLimit] { context[.maxResponseBytes] = Int64(limit) }
            result = try await remote.load(url, options: options, context: context, progress: progress)
        }
        // A shared tier may hold copies another server, with a larger limit, fetched.
        let limit = context[.sourceByteLimit] ?? maxSourceBytes
        guard result.data.count <= limit else {
            throw ImagePipeError.limitExceeded(.responseBytes, value: result.data.count, maximum: limit)
        }
        let source = url.absoluteString
        var lastModified = result.response?.cacheValidators?.lastModified
        if let value = lastModified, !ImageRequestHandler.isHeaderSafe(value) { lastModified = nil }
        let validator = SourceValidator(validator: Self.validator(of: result), lastModified: lastModified)
        validators.set(validator, forKey: source, cost: MemoryCharge.validatorCost(source: source, validator: validator.validator) + (lastModified?.utf8.count ?? 0))
        return result
    }

    /// A server's failure is never remembered against the URL: the origin may fix a 404 any time,
    /// and a URL this server refused stays refused by the same checks anyway.
    func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        false
    }

    /// The strong entity tag the source sent, else a digest of its bytes.
    static func validator(of result: ImageLoadResult) -> String {
        if let etag = result.response?.cacheValidators?.etag, !etag.hasPrefix("W/"), !etag.isEmpty {
            return ResultETag.validatorPrefix + etag
        }
        return "sha256:" + Data(SHA256.hash(data: result.data)).base64URLEncodedWithoutPadding
    }
}

extension ImageContext.Key where Value == Int {
    /// A request's own source byte limit, in place of the server's (a URL's `msfs:`, which
    /// imgproxy lets replace `IMGPROXY_MAX_SRC_FILE_SIZE` either way).
    static var sourceByteLimit: Self { .init("imageServer.sourceByteLimit") }
}

/// What the server remembers of a source's answer: the validator its results' ETags are made from,
/// and the origin's `Last-Modified`, when it sent one.
struct SourceValidator: Sendable {
    let validator: String
    let lastModified: String?
}
