import CodersGIF
import CodersJPEG
import CodersPNG
import CodersWebP
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PipelineCore
import ServiceLifecycle

/// An image service speaking imgproxy's URL grammar over the pipeline: signed URLs, sources behind
/// an allow-list and the SSRF guard, bounded work, caches, `/health`, `/metrics` on a port of its own, and a graceful
/// drain on SIGTERM or SIGINT.
public struct ImageServer: Sendable {
    public let configuration: ImageServerConfiguration
    let handler: ImageRequestHandler
    let logger: Logger

    /// - Parameters:
    ///   - configuration: the server's settings: address, keys, sources, limits, caches.
    ///   - coders: the coders sources are decoded and results encoded with; default: PNG, JPEG,
    ///     WebP and GIF.
    ///   - logger: the access log and the server's own messages (at `info`).
    public init(configuration: ImageServerConfiguration, coders: ImageCodersManager? = nil, logger: Logger = Logger(label: "imagepipe.serve")) {
        self.configuration = configuration
        self.logger = logger
        let metrics = ServerMetrics()
        let renderer = ImageRenderer(configuration: configuration, coders: coders ?? Self.defaultCoders(), metrics: metrics, logger: logger)
        handler = ImageRequestHandler(configuration: configuration, renderer: renderer, metrics: metrics, logger: logger)
    }

    /// PNG, JPEG, WebP and GIF; as in every coder registry, the last added is asked first.
    public static func defaultCoders() -> ImageCodersManager {
        ImageCodersManager(coders: [PNGCoder(), JPEGCoder(), WebPCoder(), GIFCoder()])
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting connections, lets the requests in
    /// flight finish (within `shutdownTimeout`, after which they are cancelled) and returns.
    /// `onReady` gets the address the main port listens on (`host:port`), once it does.
    /// `services` run in the same `ServiceGroup` and stop after the HTTP servers have drained:
    /// a trace exporter (swift-otel's) flushes the last requests' spans there.
    public func run(services: [any Service] = [], onReady: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        var services: [any Service] = services + [makeApplication(onReady: onReady)]
        if let metricsPort = configuration.metricsPort {
            services.append(makeMetricsApplication(port: metricsPort))
        }
        // Shut down first (services stop in reverse order): `/health` turns 503 before the
        // listener closes.
        services.append(DrainSignal(handler: handler, delay: configuration.drainDelay, logger: logger))
        var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.drainDelay + configuration.shutdownTimeout
        try await ServiceGroup(configuration: groupConfiguration).run()
        logger.info("stopped: every request in flight was answered")
    }

    /// The main application: images and `/health`.
    func makeApplication(onReady: @escaping @Sendable (String) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [DisconnectHandler(registry: handler.disconnects)],
                    idleTimeout: .nanoseconds(ServerMetrics.nanoseconds(configuration.idleTimeout)))),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections, logger: logger)),
            onServerRunning: { channel in
                await onReady(Self.describe(channel.localAddress, host: configuration.host))
            },
            logger: frameworkLogger
        )
    }

    /// The logger Hummingbird writes its own lines with: its "Server started" repeats what
    /// `onReady` is told, so below a warning they show only when debugging.
    var frameworkLogger: Logger {
        var framework = logger
        if framework.logLevel > .debug { framework.logLevel = max(framework.logLevel, .warning) }
        return framework
    }

    /// The main port's routes behind CORS (when configured), the access log, the request-shape
    /// checks (which answer HEAD and OPTIONS) and the secret (when configured), every route under
    /// the path prefix (when configured). `/metrics` is never answered here, only on
    /// `metricsPort` (without the prefix: imgproxy's metrics port answers on any path);
    /// `/info/…` describes a source; `POST /purge` purges (with `adminSecret`; 404 without);
    /// every other GET is an image URL.
    func makeRouter() -> Router<ImageRequestContext> {
        let router = Router(context: ImageRequestContext.self)
        if let origin = configuration.allowOrigin { router.add(middleware: CORSMiddleware(origin: origin)) }
        let prefix = handler.prefix
        router.add(middleware: AccessLogMiddleware(logger: logger, metrics: handler.metrics, prefix: prefix))
        router.add(middleware: RequestShapeMiddleware(maxURLLength: configuration.maxURLLength, prefix: prefix))
        if let secret = configuration.secret { router.add(middleware: SecretMiddleware(secret: secret, prefix: prefix)) }
        let handler = self.handler
        let routes = prefix.isEmpty ? router.group() : router.group(RouterPath(prefix.value))
        routes.get("/health") { _, _ in handler.health() }
        routes.get("/metrics") { _, _ -> Response in throw ServiceError.notFound }
        routes.post(RouterPath(Self.purgePath)) { request, _ in try await handler.purge(request: request) }
        routes.get("/info/**") { request, context in try await handler.info(request: request, context: context) }
        routes.get("**") { request, context in try await handler.image(request: request, context: context) }
        return router
    }

    /// The purge route (`ImageRequestHandler.purge`), the one POST the server answers.
    static let purgePath = "/purge"

    /// `/metrics` alone, on `metricsHost` and `port`.
    func makeMetricsApplication(port: Int) -> some ApplicationProtocol {
        let router = Router(context: ImageRequestContext.self)
        let handler = self.handler
        router.get("/metrics") { _, _ in handler.metricsResponse() }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(configuration.metricsHost, port: port), serverName: nil),
            logger: frameworkLogger
        )
    }

    static func describe(_ address: SocketAddress?, host: String) -> String {
        guard let address, let port = address.port else { return host }
        let ip = address.ipAddress ?? host
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}

/// Turns `/health` to 503 when graceful shutdown begins and holds the listener open for
/// `delay`: it is the last service, and the group stops services in reverse order, one after
/// the other, so the HTTP server stops accepting only once this returns.
struct DrainSignal: Service {
    let handler: ImageRequestHandler
    let delay: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        handler.startDraining()
        logger.info("draining: /health answers 503; the listener closes in \(delay.components.seconds) s, then requests in flight finish")
        if delay > .zero { try? await Task.sleep(for: delay) }
        logger.info("draining: the listener closes")
    }
}
