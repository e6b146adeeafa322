import Foundation
import HTTPTypes
import Hummingbird
import LoaderHTTP
import NIOCore
import PipelineCore

extension ImageRequestHandler {
    /// `raw:1`: the source's bytes as the origin sends them, streamed to the client as they arrive
    /// (the loader keeps none: they go from its body sink to the client), without checks or
    /// processing, and without a worker or a place in the queue (imgproxy streams it past its
    /// workers); still within `maxSourceBytes` (past it the body is cut) and the request deadline.
    /// As imgproxy's stream, the client's `Range` and `Accept-Encoding` go to the origin, and its
    /// `If-None-Match` and `If-Modified-Since` (each while its setting is on); the origin's 304 is
    /// passed on, as are its 2xx status (a 206 for a range), `ETag`, `Last-Modified`,
    /// `Content-Range`, `Accept-Ranges` and `Content-Encoding` (the bytes stay encoded). The
    /// origin's type is passed on when it names an image (imgproxy passes any); otherwise the
    /// sniffed format's, or `application/octet-stream`, so this host never serves an origin's HTML
    /// as its own.
    func raw(_ job: ImageRenderer.Job, request: Request, channel: any Channel) async throws(ServiceError) -> Response {
        let relay = RawRelay()
        var context = ImageContext()
        context[.responseModifier] = relay.responseModifier
        context[.bodySink] = relay.bodySink
        let forwarded = forwardedHeaders(request.headers)
        if !forwarded.isEmpty { context[.requestModifier] = .setting(headers: forwarded) }
        let (renderer, source, timeout) = (self.renderer, job.source, configuration.requestTimeout)
        let timedOut = OnceFlag()
        let fetch = Task { [context] in
            do throws(ServiceError) {
                relay.finished(.success(try await renderer.fetch(source, options: [.progressiveLoad], context: context) { relay.received($0) }))
            } catch {
                relay.finished(.failure(timedOut.isSet ? .deadlineExceeded : error))
            }
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            timedOut.set()
            fetch.cancel()
        }
        let disconnect = disconnects.of(channel)
        let token = disconnect?.watch { fetch.cancel() }
        let stop: @Sendable () -> Void = {
            fetch.cancel()
            timer.cancel()
            if let token { disconnect?.unwatch(token) }
        }
        let start = await withTaskCancellationHandler {
            await relay.start()
        } onCancel: {
            fetch.cancel()
        }

        var headers = HTTPFields()
        headers[.cacheControl] = cacheControl(expires: job.options.expires)
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        switch start {
        case .finished(let outcome, let head):
            stop()
            if head?.statusCode == 304 {
                setOriginValidators(&headers, head)
                return Response(status: .notModified, headers: headers)
            }
            let loaded = try outcome.get()
            headers[.contentType] = Self.rawContentType(loaded.httpResponse ?? head, first: loaded.data)
            setOriginValidators(&headers, loaded.httpResponse ?? head)
            setOriginRepresentation(&headers, loaded.httpResponse ?? head)
            return Response(status: Self.rawStatus(head), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: loaded.data)))
        case .streaming(let head, let first):
            headers[.contentType] = Self.rawContentType(head, first: Data(first.readableBytesView))
            setOriginValidators(&headers, head)
            setOriginRepresentation(&headers, head)
            // The origin's length: its bytes are the ones relayed, still in their Content-Encoding.
            let length = head?.expectedContentLength.map { Int($0) }
            let chunks = relay.chunks
            let body = ResponseBody(contentLength: length) { writer in
                defer { stop() }
                try await writer.write(first)
                relay.written(first.readableBytes)
                for await chunk in chunks {
                    switch chunk {
                    case .bytes(let bytes):
                        try await writer.write(bytes)
                        relay.written(bytes.readableBytes)
                    case .failed(let error): throw error
                    }
                }
                try await writer.finish(nil)
            }
            return Response(status: Self.rawStatus(head), headers: headers, body: body)
        }
    }

    /// The client's headers the origin is asked with, as imgproxy's stream forwards them: `Range`
    /// and `Accept-Encoding`, and the validators, each while its setting is on.
    private func forwardedHeaders(_ headers: HTTPFields) -> [String: String] {
        var forwarded: [String: String] = [:]
        if let value = headers[.range], Self.isHeaderSafe(value) { forwarded["Range"] = value }
        if let value = headers[.acceptEncoding], Self.isHeaderSafe(value) { forwarded["Accept-Encoding"] = value }
        if configuration.usesETag, let value = headers[.ifNoneMatch], Self.isHeaderSafe(value) { forwarded["If-None-Match"] = value }
        if configuration.usesLastModified, let value = headers[.ifModifiedSince], Self.isHeaderSafe(value) { forwarded["If-Modified-Since"] = value }
        return forwarded
    }

    /// The origin's `ETag` and `Last-Modified`, each while its setting is on and when it is safe to pass on.
    private func setOriginValidators(_ headers: inout HTTPFields, _ response: HTTPLoadResponse?) {
        if configuration.usesETag, let etag = response?.header("ETag"), Self.isHeaderSafe(etag) { headers[.eTag] = etag }
        if configuration.usesLastModified, let date = response?.header("Last-Modified"), Self.isHeaderSafe(date) { headers[.lastModified] = date }
    }

    /// The origin's `Content-Range`, `Accept-Ranges` and `Content-Encoding`, when safe to pass on.
    private func setOriginRepresentation(_ headers: inout HTTPFields, _ response: HTTPLoadResponse?) {
        for (name, field) in [("Content-Range", HTTPField.Name.contentRange), ("Accept-Ranges", .acceptRanges), ("Content-Encoding", .contentEncoding)] {
            if let value = response?.header(name), Self.isHeaderSafe(value) { headers[field] = value }
        }
    }

    /// The origin's 2xx (a 206 for a range, a 203), else 200 (a cache tier answered).
    static func rawStatus(_ head: HTTPLoadResponse?) -> HTTPResponse.Status {
        guard let code = head?.statusCode, (200...299).contains(code) else { return .ok }
        return HTTPResponse.Status(code: code)
    }

    /// The origin's type when it names an image, else the format `first` bytes are sniffed as.
    static func rawContentType(_ head: HTTPLoadResponse?, first: Data) -> String {
        if let type = head?.mimeType, type.hasPrefix("image/"), isHeaderSafe(type) { return type }
        let sniffed = ImageFormat.detect(in: first)
        return sniffed == .undefined ? "application/octet-stream" : sniffed.mimeType
    }
}
