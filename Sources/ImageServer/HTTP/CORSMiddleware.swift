import Hummingbird

/// imgproxy's CORS (`IMGPROXY_ALLOW_ORIGIN`): every answer, errors included, says which origin
/// may read it and that GET and OPTIONS are answered. Outermost, so nothing escapes it.
struct CORSMiddleware: RouterMiddleware {
    typealias Context = ImageRequestContext

    let origin: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlAllowMethods] = "GET, OPTIONS"
        return response
    }
}
