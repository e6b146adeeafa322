import Hummingbird

/// imgproxy's `IMGPROXY_SECRET`: a GET must carry `Authorization: Bearer <secret>` (a CDN in front
/// adds it, so only the CDN reaches the server), else 403 before its URL is read. `/health` is
/// exempt, for load balancers, and `/purge`, which asks for its own (`adminSecret`); HEAD and
/// OPTIONS never reach here.
struct SecretMiddleware: RouterMiddleware {
    typealias Context = ImageRequestContext

    let credential: BearerCredential
    let prefix: PathPrefix

    init(secret: String, prefix: PathPrefix = PathPrefix("")) {
        credential = BearerCredential(secret: secret)
        self.prefix = prefix
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = prefix.strip(request.uri.path)
        guard path == "/health" || path == ImageServer.purgePath || credential.matches(request.headers[.authorization]) else {
            throw ServiceError.forbidden("the request does not carry the server's secret")
        }
        return try await next(request, context)
    }
}
