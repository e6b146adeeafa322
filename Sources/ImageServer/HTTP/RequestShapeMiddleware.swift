import Hummingbird

/// Refuses what no route answers before routing: methods other than GET, HEAD and OPTIONS (405;
/// `POST /purge` passes, for its route)
/// and targets longer than `--max-url-length` (414), so neither reaches the URL parser. HEAD and
/// OPTIONS are answered 200 here, on any path and without any work, as imgproxy answers them
/// (with CORS headers, when configured, for a browser's preflight); with a path prefix, only under it
/// (imgproxy routes them under it too), and nothing outside it gets past here but a 404.
struct RequestShapeMiddleware: RouterMiddleware {
    typealias Context = ImageRequestContext

    let maxURLLength: Int
    let prefix: PathPrefix

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isPurge = request.method == .post && request.uri.path == prefix.route(ImageServer.purgePath)
        guard request.method == .get || request.method == .head || request.method == .options || isPurge else {
            throw ServiceError(status: 405, reason: "only GET, HEAD and OPTIONS are answered")
        }
        let length = request.uri.path.utf8.count + (request.uri.query.map { $0.utf8.count + 1 } ?? 0)
        guard length <= maxURLLength else {
            throw ServiceError(status: 414, reason: "the URL is longer than the server takes (\(maxURLLength) bytes)")
        }
        guard prefix.strip(request.uri.path) != nil else { throw ServiceError.notFound }
        if request.method == .head || request.method == .options { return Response(status: .ok) }
        return try await next(request, context)
    }
}
