import Foundation
import Hummingbird

/// `POST /purge`: takes a source, or every source under a prefix, out of the whole fleet: the
/// results made from it and its shared copy, on every server, memory tiers included. It bumps the
/// purge generation every server reads with each request, so when it answers 200 no server
/// answers the old bytes or ETag again. Redis unreachable: 503, nothing purged.
extension ImageRequestHandler {
    /// Bytes of a purge's form body read at most (a URL, as long as an image URL may be).
    var maxPurgeBodyBytes: Int { configuration.maxURLLength }

    func purge(request: Request) async throws(ServiceError) -> Response {
        guard let secret = configuration.adminSecret, let shared = renderer.shared else { throw ServiceError.notFound }
        guard BearerCredential(secret: secret).matches(request.headers[.authorization]) else {
            throw ServiceError.forbidden("the request does not carry the server's admin secret")
        }
        var request = request
        var fields = Self.formFields(request.uri.query ?? "")
        if fields.isEmpty {
            do {
                let body = try await request.collectBody(upTo: maxPurgeBodyBytes)
                fields = Self.formFields(String(decoding: body.readableBytesView, as: UTF8.self))
            } catch {
                throw ServiceError(status: 413, reason: "the purge request's body is longer than the server takes (\(maxPurgeBodyBytes) bytes)")
            }
        }
        let done: Bool
        let what: String
        switch (fields["url"], fields["prefix"]) {
        case (let url?, nil):
            let source = try purgeSource(url)
            (done, what) = (await shared.purge(source: source), source.absoluteString)
        case (nil, let prefix?):
            let resolved = try purgePrefix(prefix)
            guard shared.isPurgeablePrefix(resolved) else {
                throw ServiceError.badRequest("a prefix is a URL ending in / (a folder), at most 16 folders deep")
            }
            (done, what) = (await shared.purge(prefix: resolved), resolved + "*")
        default:
            throw ServiceError.badRequest("give url=SOURCE or prefix=PREFIX (one of them)")
        }
        guard done else {
            throw ServiceError(status: 503, reason: "the shared cache cannot be reached; nothing was purged, try again")
        }
        logger.notice("purged", metadata: ["source": "\(ProcessingURL.printable(what))"])
        return Self.text(.ok, "purged \(ProcessingURL.printable(what))\n")
    }

    /// The source `text` names as image URLs name it (after the URL replacements and `baseURL`),
    /// so its keys are theirs.
    private func purgeSource(_ text: String, rewrite: Bool = true) throws(ServiceError) -> URL {
        let source = rewrite ? rewritten(text) : text
        do {
            return try policy.resolve(source)
        } catch {
            switch error {
            case .malformed(let reason), .notAllowed(let reason): throw ServiceError.badRequest(reason)
            }
        }
    }

    /// The prefix as source URLs spell it: after the URL replacements and `baseURL`, a `local:///`
    /// folder as the file path its sources resolve to. The allow-list is not asked: a prefix may
    /// span several of its entries.
    private func purgePrefix(_ text: String) throws(ServiceError) -> String {
        let prefix = rewritten(text)
        if prefix.lowercased().hasPrefix("local:") { return try purgeSource(prefix, rewrite: false).absoluteString }
        guard let url = URL(string: prefix), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            throw ServiceError.badRequest("the prefix is not an http(s) or local:/// URL")
        }
        return prefix
    }

    private func rewritten(_ source: String) -> String {
        ProcessingURL.rewritten(source, replacements: configuration.urlReplacements, baseURL: configuration.baseURL)
    }

    /// `application/x-www-form-urlencoded` fields (a query or a body): `+` is a space, the rest
    /// percent-decoded; a field given twice keeps its last value.
    static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String? { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decoded(parts[0]), let value = decoded(parts.count > 1 ? parts[1] : "") else { continue }
            fields[name] = value
        }
        return fields
    }
}
