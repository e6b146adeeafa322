import Hummingbird

/// imgproxy's `IMGPROXY_SECRET`: a GET must carry `Authorization: Bearer <secret>` (a CDN in front
/// adds it, so only the CDN reaches the server), else 403 before its URL is read. `/health` is
/// exempt, for load balancers; HEAD and OPTIONS never reach here.
struct SecretMiddleware: RouterMiddleware {
    typealias Context = ImageRequestContext

    let expected: [UInt8]

    init(secret: String) { expected = Array("Bearer \(secret)".utf8) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path == "/health" || isExpected(request.headers[.authorization]) else {
            throw ServiceError.forbidden("the request does not carry the server's secret")
        }
        return try await next(request, context)
    }

    /// Compared in constant time for a given length: the time taken tells nothing of the secret.
    func isExpected(_ header: String?) -> Bool {
        let given = Array((header ?? "").utf8)
        var difference = given.count == expected.count ? 0 : 1
        for index in expected.indices { difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0)) }
        return difference == 0
    }
}
