import CCurlShim
import Foundation
import PipelineCore
import Synchronization

/// Loads http and https URLs with libcurl: one multi handle on one thread, connection reuse,
/// HTTP/2 multiplexing when the server offers it, gzip/deflate, and SDWebImage's downloader
/// semantics (coalescing, priorities, modifiers, validation, blocked-URL rules).
///
/// Progress handlers run on the loader's thread: keep them short, or hop elsewhere.
public final class HTTPLoader: ImageLoader {
    /// The loader `ImageLoadersManager.shared` users register; lives for the whole process.
    public static let shared = HTTPLoader()

    /// The version sent in the default `User-Agent`.
    public static let version = "0.1.0"

    private let configurationState: Mutex<HTTPLoaderConfiguration>
    /// The multi handle and its thread, started by the first download: a program that never
    /// downloads (a `fetch` of local files) opens no libcurl, sets up no TLS and starts no thread.
    private let multiState = Mutex<(multi: CurlMulti?, invalidated: Bool)>((nil, false))
    /// Transfers in flight, shared by every caller of the same request. Made by the first download,
    /// like the multi handle: making it costs a scan of the program's conformance records, which a
    /// command that only reads files should not pay at start-up.
    private let transfersState = Mutex<Coalescer<TransferKey, ImageLoadResult, ImageLoadProgress>?>(nil)
    private var transfers: Coalescer<TransferKey, ImageLoadResult, ImageLoadProgress> {
        transfersState.withLock { state in
            if let transfers = state { return transfers }
            let transfers = Coalescer<TransferKey, ImageLoadResult, ImageLoadProgress>()
            state = transfers
            return transfers
        }
    }

    public init(configuration: HTTPLoaderConfiguration = HTTPLoaderConfiguration()) {
        configurationState = Mutex(configuration)
    }

    deinit { startedMulti?.stop() }

    private var startedMulti: CurlMulti? { multiState.withLock { $0.multi } }

    /// The multi handle, started now if this is the first download. Throws `libraryUnavailable`
    /// when libcurl cannot be opened. After `invalidate()` it is a stopped handle, which cancels
    /// what is submitted.
    private func runningMulti() throws(ImagePipeError) -> CurlMulti {
        if let reason = ip_curl_open() {
            throw .transport(kind: .libraryUnavailable, message: String(cString: reason))
        }
        let (multi, stopAtOnce) = multiState.withLock { state -> (CurlMulti, Bool) in
            if let multi = state.multi { return (multi, false) }
            let multi = CurlMulti(maxConcurrent: configuration.maxConcurrentDownloads)
            state.multi = multi
            return (multi, state.invalidated)
        }
        if stopAtOnce { multi.stop() }
        return multi
    }

    /// The configuration for downloads started from now on.
    public var configuration: HTTPLoaderConfiguration {
        get { configurationState.withLock { $0 } }
        set {
            configurationState.withLock { $0 = newValue }
            startedMulti?.setMaxConcurrent(newValue.maxConcurrentDownloads)
        }
    }

    /// Transfers running at once; changing it takes effect immediately (queued ones start).
    public var maxConcurrentDownloads: Int {
        get { startedMulti?.maxConcurrent.load(ordering: .relaxed) ?? max(1, configuration.maxConcurrentDownloads) }
        set {
            configurationState.withLock { $0.maxConcurrentDownloads = newValue }
            startedMulti?.setMaxConcurrent(newValue)
        }
    }

    /// Transfers queued, running or waiting to retry (SDWebImage's `currentDownloadCount`).
    public var currentDownloadCount: Int { startedMulti?.activeTransfers.load(ordering: .relaxed) ?? 0 }

    /// libcurl easy handles alive, idle ones kept for reuse included; 0 after `invalidate()`.
    var liveEasyHandleCount: Int { startedMulti?.liveEasyHandles.load(ordering: .relaxed) ?? 0 }

    /// Callers waiting on downloads in flight; several per download when coalesced.
    var waitingCallerCount: Int { transfersState.withLock { $0?.joinerCount ?? 0 } }

    /// Cancels every download and releases every libcurl handle and connection. The loader cannot
    /// be used afterwards. Called by `deinit`; call it yourself to release sockets at a known time.
    public func invalidate() {
        multiState.withLock { state in
            state.invalidated = true
            return state.multi
        }?.stop()
    }

    /// `Accept` when none is configured: the MIME types of the registered formats (in the format
    /// table's order) the registered coders decode, then any image, then anything (SDWebImage sends
    /// `image/*,*/*;q=0.8`).
    public static func defaultAcceptHeader(coders: ImageCodersManager = .shared, formats: ImageFormatRegistry = .shared) -> String {
        let types = formats.formats.filter { coders.canDecode(format: $0) }.map(\.mimeType)
        return (types + ["image/*;q=0.8", "*/*;q=0.5"]).joined(separator: ",")
    }

    public func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host?.isEmpty == false
    }

    public func load(
        _ url: URL, options: ImageOptions, context: ImageContext,
        progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult {
        try await loadTyped(url, options: options, context: context, progress: progress)
    }

    /// `load` with its error type spelled out.
    public func loadTyped(
        _ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: (@Sendable (ImageLoadProgress) -> Void)? = nil
    ) async throws(ImagePipeError) -> ImageLoadResult {
        guard canLoad(url, options: options, context: context) else { throw .invalidURL(url.absoluteString) }
        if Task.isCancelled { throw .cancelled }
        var config = configuration
        if let limit = context[.maxResponseBytes] { config.maxResponseBytes = max(0, limit) }
        let settings = try makeSettings(url, options: options, context: context, config: config)
        let decryptor = context[.decryptor] ?? config.decryptor
        let caller = TransferCaller(
            progress: progress, minimumProgressInterval: config.minimumProgressInterval,
            // Partial bytes are useless to decode before decryption (SDWebImage
            // also skips progressive decoding when there is a decryptor).
            wantsPartialData: options.contains(.progressiveLoad) && decryptor == nil,
            decryptor: decryptor)
        let multi = try runningMulti()
        let shared: ImageLoadResult
        do {
            shared = try await transfers.value(for: TransferKey(settings: settings), onProgress: caller.report) { [multi] report in
                try await CurlTransfer(settings: settings, multi: multi, report: report).run().get()
            }
        } catch let error as ImagePipeError {
            throw error
        } catch {
            // The coalescer and the transfer throw only `ImagePipeError`s; this is never reached.
            throw .cancelled
        }
        return try caller.result(of: shared)
    }

    /// Blocks the URL: 4xx other than 408 and 429, a bad URL, undecodable or refused data, a scheme or
    /// TLS failure, a broken limit. Transient (never blocked): cancellation, timeouts, resets,
    /// 5xx, 408, 429, 304, refusals by a modifier, a libcurl that cannot be loaded. Stricter than SDWebImage, which does not block 404.
    public func shouldBlockURL(_ url: URL, error: ImagePipeError, options: ImageOptions, context: ImageContext) -> Bool {
        switch error {
        case .loadFailed(.httpStatus, let status?, _): (400...499).contains(status) && status != 408 && status != 429
        case .loadFailed(.libraryUnavailable, _, _): false
        case .loadFailed(let failure, _, _): !failure.isTransient
        case .badContentType, .limitExceeded: true
        default: error.blocksURLByDefault
        }
    }

    // MARK: Requests

    private func makeSettings(_ url: URL, options: ImageOptions, context: ImageContext, config: HTTPLoaderConfiguration) throws(ImagePipeError) -> TransferSettings {
        var request = HTTPLoadRequest(url: url, headers: config.headers, timeout: config.effectiveTimeout)
        if request.header("Accept") == nil { request.headers["Accept"] = Self.defaultAcceptHeader() }
        if request.header("User-Agent") == nil { request.headers["User-Agent"] = "ImagePipe/\(Self.version)" }
        var isRevalidation = false
        if options.contains(.refreshCached) {
            // What the cache kept with the entry (the manager sets it), or a response in hand.
            let cached = context[.cachedResponse]?.cacheValidators ?? context[.cacheValidators]
            if let etag = cached?.etag {
                request.headers["If-None-Match"] = etag
                isRevalidation = true
            }
            if let date = cached?.lastModified {
                request.headers["If-Modified-Since"] = date
                isRevalidation = true
            }
        }
        if let modifier = context[.requestModifier] ?? config.requestModifier {
            guard let modified = modifier.modify(request) else {
                throw .invalidDownloadOperation(reason: "the request modifier refused the request")
            }
            request = modified
        }
        guard canLoad(request.url, options: options, context: context) else { throw .invalidURL(request.url.absoluteString) }
        return TransferSettings(
            request: request, options: options, configuration: config,
            credentials: context[.httpCredentials] ?? config.credentials,
            responseModifier: context[.responseModifier] ?? config.responseModifier,
            isRevalidation: isRevalidation, bodySink: context[.bodySink], priority: ImageLoadPriority(options: options),
            order: context[.executionOrder] ?? config.executionOrder)
    }
}
