import Foundation
import LoaderHTTP
import PipelineConformance
import PipelineCore
import Synchronization
import TestSupport
import Testing

@Suite("HTTPLoader: requests and responses")
struct HTTPLoaderTests {
    @Test("a download returns the body, the response and progress ending at the total")
    func simpleDownload() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let events = Mutex<[ImageLoadProgress]>([])
        let result = try await loader.loadTyped(server.url("/image.png")) { event in events.withLock { $0.append(event) } }
        #expect(result.data == FaultRoutes.image)
        #expect(result.httpResponse?.statusCode == 200)
        #expect(result.response?.mimeType == "image/png")
        let seen = events.withLock { $0 }
        #expect(seen.first?.receivedBytes == 0)
        #expect(seen.last == ImageLoadProgress(receivedBytes: 65536, expectedBytes: 65536))
        #expect(seen.map(\.receivedBytes) == seen.map(\.receivedBytes).sorted())
    }

    @Test("sequential downloads reuse one connection")
    func connectionReuse() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        for index in 0..<20 {
            #expect(try await loader.loadTyped(server.url("/image.png?n=\(index)")).data == FaultRoutes.image)
        }
        #expect(server.requestCount("/image.png") == 20)
        #expect(server.acceptedConnectionCount == 1)
    }

    @Test("only http and https URLs with a host are accepted")
    func canLoad() async {
        let loader = HTTPLoader()
        #expect(loader.canLoad(URL(string: "https://example.com/a.png")!, options: [], context: ImageContext()))
        #expect(!loader.canLoad(URL(string: "ftp://example.com/a.png")!, options: [], context: ImageContext()))
        #expect(!loader.canLoad(URL(fileURLWithPath: "/tmp/a.png"), options: [], context: ImageContext()))
        #expect(await loadError(loader, URL(string: "ftp://example.com/a.png")!) == .invalidURL("ftp://example.com/a.png"))
    }

    @Test("redirects within http are followed and the final URL is reported")
    func followsRedirect() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let result = try await HTTPLoader(configuration: FaultRoutes.testConfiguration()).loadTyped(server.url("/redirect"))
        #expect(result.data == FaultRoutes.image)
        #expect(result.response?.url.path == "/image.png")
    }

    @Test("default headers: Accept lists image types, User-Agent names ImagePipe; configured headers are sent")
    func defaultHeaders() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        var config = FaultRoutes.testConfiguration()
        config.headers = ["X-Extra": "1"]
        let result = try await HTTPLoader(configuration: config).loadTyped(server.url("/headers"))
        let headers = try #require(try JSONSerialization.jsonObject(with: result.data) as? [String: String])
        #expect(headers["accept"]?.contains("image/*") == true)
        #expect(headers["user-agent"] == "ImagePipe/\(HTTPLoader.version)")
        #expect(headers["x-extra"] == "1")
        #expect(HTTPLoader.defaultAcceptHeader(coders: ImageCodersManager()) == "image/*;q=0.8,*/*;q=0.5")
    }

    @Test("the default Accept offers a plugin's registered format once a coder decodes it, even without encoding it")
    func acceptFollowsTheFormatTable() {
        let format = ImageFormat(identifier: "accept-test", mimeTypes: ["image/x-accept-test"], fileExtensions: ["atst"])
        let formats = ImageFormatRegistry(formats: [.png, format])
        let coders = ImageCodersManager(coders: [DecodeOnlyCoder(format: format)])
        #expect(HTTPLoader.defaultAcceptHeader(coders: coders, formats: formats) == "image/x-accept-test,image/*;q=0.8,*/*;q=0.5")
    }

    @Test("a request modifier changes headers and URL; returning nil fails with invalidDownloadOperation before any request")
    func requestModifier() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let context = ImageContext().with(
            .requestModifier,
            HTTPRequestModifier { request in
                var request = request
                request.url = server.url("/headers")
                request.headers["X-Token"] = "t"
                return request
            })
        let result = try await loader.loadTyped(server.url("/image.png"), context: context)
        let headers = try #require(try JSONSerialization.jsonObject(with: result.data) as? [String: String])
        #expect(headers["x-token"] == "t")
        #expect(server.requestCount("/image.png") == 0)
        let refusing = ImageContext().with(.requestModifier, HTTPRequestModifier { _ in nil })
        #expect(
            await loadError(loader, server.url("/image.png"), context: refusing)
                == .invalidDownloadOperation(reason: "the request modifier refused the request"))
        #expect(server.requestCount("/image.png") == 0)
    }

    @Test("a request modifier can change the method and send a body")
    func methodAndBody() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let context = ImageContext().with(.requestModifier, .setting(method: "POST", body: Data("hello".utf8)))
        let result = try await HTTPLoader(configuration: FaultRoutes.testConfiguration()).loadTyped(server.url("/echo"), context: context)
        #expect(String(decoding: result.data, as: UTF8.self) == "POST hello")
    }

    @Test("a response modifier can turn 200 into 404 (badStatusCode 404) or refuse the response (invalidResponse)")
    func responseModifier() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let to404 = ImageContext().with(
            .responseModifier,
            HTTPResponseModifier { response in
                var response = response
                response.statusCode = 404
                return response
            })
        #expect(await loadError(loader, server.url("/image.png"), context: to404) == .badStatusCode(404))
        let refusing = ImageContext().with(.responseModifier, HTTPResponseModifier { _ in nil })
        #expect(
            await loadError(loader, server.url("/image.png"), context: refusing)
                == .invalidResponse(reason: "the response modifier refused the response"))
    }

    @Test("a decryptor turns the body into image bytes; returning nil fails with badImageData")
    func decryptor() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let base64 = ImageContext().with(.decryptor, .base64)
        #expect(try await loader.loadTyped(server.url("/base64"), context: base64).data == FaultRoutes.image)
        // Partial bytes are not handed out before decryption.
        let partials = Mutex(0)
        _ = try await loader.loadTyped(server.url("/base64"), options: .progressiveLoad, context: base64) { event in
            if event.partialData != nil { partials.withLock { $0 += 1 } }
        }
        #expect(partials.withLock { $0 } == 0)
        let refusing = ImageContext().with(.decryptor, ImageDecryptor { _, _ in nil })
        #expect(await loadError(loader, server.url("/base64"), context: refusing) == .badImageData(reason: "the decryptor returned no data"))
    }

    @Test("basic auth from the configuration or the context; wrong credentials get badStatusCode 401")
    func basicAuth() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        var config = FaultRoutes.testConfiguration()
        config.credentials = HTTPCredentials(user: "user", password: "secret")
        #expect(try await HTTPLoader(configuration: config).loadTyped(server.url("/auth")).data == FaultRoutes.image)
        let plain = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        #expect(await loadError(plain, server.url("/auth")) == .badStatusCode(401))
        let context = ImageContext().with(.httpCredentials, HTTPCredentials(user: "user", password: "secret"))
        #expect(try await plain.loadTyped(server.url("/auth"), context: context).data == FaultRoutes.image)
        let wrong = ImageContext().with(.httpCredentials, HTTPCredentials(user: "user", password: "nope"))
        #expect(await loadError(plain, server.url("/auth"), context: wrong) == .badStatusCode(401))
    }

    @Test("cookies are stored and sent only with handleCookies")
    func cookies() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        _ = try await loader.loadTyped(server.url("/set-cookie"))
        let without = try await loader.loadTyped(server.url("/headers"))
        #expect((try JSONSerialization.jsonObject(with: without.data) as? [String: String])?["cookie"] == nil)
        _ = try await loader.loadTyped(server.url("/set-cookie"), options: .handleCookies)
        let with = try await loader.loadTyped(server.url("/headers"), options: .handleCookies)
        #expect((try JSONSerialization.jsonObject(with: with.data) as? [String: String])?["cookie"] == "session=abc123")
        let afterwards = try await loader.loadTyped(server.url("/headers"))
        #expect((try JSONSerialization.jsonObject(with: afterwards.data) as? [String: String])?["cookie"] == nil)
    }

    @Test("a gzip body arrives decompressed")
    func gzip() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let result = try await HTTPLoader(configuration: FaultRoutes.testConfiguration()).loadTyped(server.url("/gzip"))
        #expect(result.data == FaultRoutes.image)
        #expect(result.httpResponse?.header("Content-Encoding") == "gzip")
    }

    @Test("refreshCached revalidates with the validators handed over and reports cacheNotModified on 304")
    func refreshCached() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let first = try await loader.loadTyped(server.url("/etag"))
        #expect(first.data == FaultRoutes.image)
        #expect(first.httpResponse?.cacheValidators == CacheValidators(etag: "\"v1\""))
        // The cache's validators (what the manager passes) and a response in hand both work.
        let fromCache = ImageContext().with(.cacheValidators, CacheValidators(etag: "\"v1\""))
        #expect(await loadError(loader, server.url("/etag"), options: .refreshCached, context: fromCache) == .cacheNotModified)
        let fromResponse = ImageContext().with(.cachedResponse, first.httpResponse)
        #expect(await loadError(loader, server.url("/etag"), options: .refreshCached, context: fromResponse) == .cacheNotModified)
        // The loader keeps none of its own: the cache is the one place validators live.
        #expect(try await loader.loadTyped(server.url("/etag"), options: .refreshCached).data == FaultRoutes.image)
        // Without refreshCached the 304 path is never asked for.
        #expect(try await loader.loadTyped(server.url("/etag"), context: fromCache).data == FaultRoutes.image)
        #expect(!loader.shouldBlockURL(server.url("/etag"), error: .cacheNotModified, options: [], context: ImageContext()))
    }

    @Test(
        "freshness: no-store and no-cache are 0, max-age wins over Expires, Expires counts from Date, a bad Expires is stale",
        arguments: [
            (["Cache-Control": "public, max-age=600"], 600.0),
            (["Cache-Control": "max-age=600, no-cache"], 0.0),
            (["Cache-Control": "no-store"], 0.0),
            (["Cache-Control": "max-age=oops"], 0.0),
            (["Cache-Control": "s-maxage=60, max-age=120", "Expires": "Sun, 06 Nov 1994 09:49:37 GMT"], 120.0),
            (["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "Sun, 06 Nov 1994 09:49:37 GMT"], 3600.0),
            (["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "0"], 0.0),
            (["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "Sun, 06 Nov 1994 07:49:37 GMT"], 0.0),
        ] as [([String: String], Double)])
    func freshnessLifetime(headers: [String: String], lifetime: Double) {
        let response = HTTPLoadResponse(url: URL(string: "http://127.0.0.1/a.png")!, statusCode: 200, headers: headers)
        #expect(response.cacheValidators?.freshnessLifetime == lifetime)
        #expect(response.cacheValidators?.canRevalidate == false)
        #expect(HTTPLoadResponse(url: URL(string: "http://127.0.0.1/a.png")!, statusCode: 200).cacheValidators == nil)
    }

    @Test("acceptable status codes and content types reject with the status or the type")
    func validation() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        var config = FaultRoutes.testConfiguration()
        config.acceptableStatusCodes = [201]
        #expect(await loadError(HTTPLoader(configuration: config), server.url("/image.png")) == .badStatusCode(200))
        config = FaultRoutes.testConfiguration()
        config.acceptableContentTypes = ["image/png", "image/jpeg"]
        let loader = HTTPLoader(configuration: config)
        #expect(await loadError(loader, server.url("/text")) == .badContentType("text/html"))
        #expect(try await loader.loadTyped(server.url("/image.png")).data == FaultRoutes.image)
        #expect(await loadError(loader, server.url("/empty.png")) == .badImageData(reason: "the response body is empty"))
    }

    @Test("progressiveLoad progress carries the cumulative bytes; a minimum interval thins events but keeps the last")
    func progressiveAndInterval() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let big = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0) })
        server.route("/big") { _, c in
            c.write("HTTP/1.1 200 OK\r\nContent-Length: \(big.count)\r\n\r\n")
            for offset in stride(from: 0, to: big.count, by: 65536) {
                c.write(big[offset..<offset + 65536])
                usleep(2000)
            }
        }
        let partials = Mutex<[Data]>([])
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        _ = try await loader.loadTyped(server.url("/big"), options: .progressiveLoad) { event in
            if let data = event.partialData { partials.withLock { $0.append(data) } }
        }
        let seen = partials.withLock { $0 }
        #expect(seen.count > 2)
        #expect(seen.last == big)
        #expect(seen.allSatisfy { big.prefix($0.count) == $0 })

        var config = FaultRoutes.testConfiguration()
        config.minimumProgressInterval = 0.5
        let counted = Mutex<[ImageLoadProgress]>([])
        _ = try await HTTPLoader(configuration: config).loadTyped(server.url("/big")) { event in counted.withLock { $0.append(event) } }
        let events = counted.withLock { $0 }
        #expect(events.count <= 4)
        #expect(events.last?.receivedBytes == Int64(big.count))
        #expect(events.allSatisfy { $0.partialData == nil })
    }
}

/// Decodes one format and encodes none: what the `Accept` header must still offer.
private struct DecodeOnlyCoder: ImageCoder {
    let format: ImageFormat
    func canDecode(_ data: Data) -> Bool { false }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image { throw ImagePipeError.badImageData(reason: "test") }
    func canDecode(format: ImageFormat) -> Bool { format == self.format }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImagePipeError.encodingFailed(reason: "test")
    }
}
