import Crypto
import Foundation
import LoaderFile
import LoaderHTTP
import PipelineCore

/// The server's loader: http(s) through `HTTPLoader` (its SSRF guard on unless configured off),
/// files through `FileLoader` held to the local root. It notes each source's validator (its
/// `ETag`, else a digest of its bytes) so answers can carry an ETag and 304s can skip the work.
final class SourceLoader: ImageLoader {
    let http: HTTPLoader
    let file: FileLoader?
    let validators: MemoryCache<String, String>
    let metrics: ServerMetrics
    /// Whether a URL a source redirected to may be used; the allow-list applies to every hop's end.
    let allowsRedirectTarget: @Sendable (URL) -> Bool

    init(configuration: ImageServerConfiguration, metrics: ServerMetrics, allowsRedirectTarget: @escaping @Sendable (URL) -> Bool) {
        self.metrics = metrics
        self.allowsRedirectTarget = allowsRedirectTarget
        var httpConfiguration = HTTPLoaderConfiguration()
        httpConfiguration.blocksPrivateAddresses = !configuration.allowsPrivateSources
        httpConfiguration.maxResponseBytes = Int64(configuration.maxSourceBytes)
        httpConfiguration.maxConcurrentDownloads = max(6, configuration.workers * 2)
        httpConfiguration.timeout = Double(configuration.requestTimeout.components.seconds) + 1
        httpConfiguration.connectTimeout = min(httpConfiguration.timeout, 5)
        http = HTTPLoader(configuration: httpConfiguration)
        file = configuration.localRoot.map { root in
            FileLoader(configuration: FileLoaderConfiguration(allowedRoots: [root], maxBytes: Int64(configuration.maxSourceBytes)))
        }
        validators = MemoryCache(costLimit: .max, countLimit: 100_000)
    }

    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool {
        url.isFileURL ? file?.canLoad(url, options: options, context: context) ?? false : http.canLoad(url, options: options, context: context)
    }

    func load(
        _ url: URL, options: ImageOptions, context: ImageContext,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult {
        let result: ImageLoadResult
        let start = ContinuousClock.now
        defer { metrics.fetchDuration.recordNanoseconds(ServerMetrics.nanoseconds(ContinuousClock.now - start)) }
        if url.isFileURL {
            guard let file else { throw ImagePipeError.invalidURL(url.absoluteString) }
            result = try await file.load(url, options: options, context: context, progress: progress)
        } else {
            result = try await http.load(url, options: options, context: context, progress: progress)
            if let final = result.response?.url, final != url, !allowsRedirectTarget(final) {
                throw ImagePipeError.transport(kind: .blockedAddress, message: "redirected outside the allowed sources")
            }
        }
        validators.set(Self.validator(of: result), forKey: url.absoluteString)
        return result
    }

    /// A server's failure is never remembered against the URL: the origin may fix a 404 any time,
    /// and a URL this server refused stays refused by the same checks anyway.
    func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        false
    }

    /// The strong `ETag` the source sent, else a digest of its bytes.
    static func validator(of result: ImageLoadResult) -> String {
        if let etag = result.httpResponse?.header("ETag"), !etag.hasPrefix("W/"), !etag.isEmpty {
            return "etag:" + etag
        }
        return "sha256:" + Data(SHA256.hash(data: result.data)).base64URLEncodedWithoutPadding
    }
}
