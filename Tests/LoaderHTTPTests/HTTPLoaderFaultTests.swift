import Foundation
import LoaderHTTP
import PipelineCore
import TestSupport
import Testing

/// Each fault ends in its typed error and says whether to block the URL. The slow faults end by
/// the configuration's timeouts, which their `timedOut` errors name; a time limit only catches a
/// hang, never measures.
@Suite("HTTPLoader: faults")
struct HTTPLoaderFaultTests {
    private func failure(
        _ path: String, config: HTTPLoaderConfiguration = FaultRoutes.testConfiguration()
    ) async throws -> (ImagePipeError?, blocked: Bool) {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: config)
        let url = server.url(path)
        let outcome = await withTimeLimit(.seconds(60)) { await loadError(loader, url) }
        let error = try #require(outcome, "\(path) hung").get()
        let blocked = error.map { loader.shouldBlockURL(url, error: $0, options: [], context: ImageContext()) } ?? false
        return (error, blocked)
    }

    private func expectTransport(_ error: ImagePipeError?, _ kind: ImagePipeError.LoadFailure) {
        guard case .loadFailed(let got, nil, _) = error, got == kind else {
            Issue.record("expected transport(\(kind)), got \(String(describing: error))")
            return
        }
    }

    @Test("a trickling server is dropped by the minimum transfer speed with timedOut, not blocked")
    func trickle() async throws {
        let (error, blocked) = try await failure("/trickle", config: FaultRoutes.trickleConfiguration())
        expectTransport(error, .timedOut)
        #expect(!blocked)
        #expect(error?.description.hasSuffix("HTTPLoaderConfiguration.lowSpeedLimit and lowSpeedTime set the slowest transfer accepted") == true)
    }

    @Test("a server that never answers hits the total timeout with timedOut")
    func totalTimeout() async throws {
        var config = FaultRoutes.testConfiguration()
        config.timeout = 0.5
        let (error, blocked) = try await failure("/hang", config: config)
        expectTransport(error, .timedOut)
        #expect(!blocked)
        #expect(error?.description.hasSuffix("HTTPLoaderConfiguration.timeout and connectTimeout set the time allowed") == true)
    }

    @Test("a connection reset mid-body is connectionLost, not blocked")
    func reset() async throws {
        let (error, blocked) = try await failure("/reset")
        expectTransport(error, .connectionLost)
        #expect(!blocked)
    }

    @Test("a body shorter than its Content-Length is connectionLost")
    func shortBody() async throws {
        let (error, _) = try await failure("/short-body")
        expectTransport(error, .connectionLost)
    }

    @Test("a body longer than its Content-Length is cut at the announced length")
    func longBody() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let result = try await HTTPLoader(configuration: FaultRoutes.testConfiguration()).loadTyped(server.url("/long-body"))
        #expect(result.data == FaultRoutes.image.prefix(10))
    }

    @Test("an endless body stops at the byte limit with limitExceeded(.responseBytes)")
    func endless() async throws {
        var config = FaultRoutes.testConfiguration()
        config.maxResponseBytes = 1 << 20
        let (error, blocked) = try await failure("/endless", config: config)
        guard case .limitExceeded(.responseBytes, _, let maximum) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(maximum == 1 << 20)
        #expect(blocked)
        #expect(error?.description.hasSuffix("raise HTTPLoaderConfiguration.maxResponseBytes if this is expected") == true)
    }

    @Test("a Content-Length over the byte limit fails before the body is read")
    func announcedTooBig() async throws {
        var config = FaultRoutes.testConfiguration()
        config.maxResponseBytes = 1 << 20
        let (error, _) = try await failure("/huge-length", config: config)
        guard case .limitExceeded(.responseBytes, _, 1 << 20) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(error?.description == "responseBytes limit exceeded: 50000000 is more than the maximum of 1048576; raise HTTPLoaderConfiguration.maxResponseBytes if this is expected")
    }

    @Test("a 301 loop ends with limitExceeded(.redirects)")
    func redirectLoop() async throws {
        var config = FaultRoutes.testConfiguration()
        config.maxRedirects = 3
        let (error, blocked) = try await failure("/loop", config: config)
        #expect(error == .limitExceeded(.redirects, value: 4, maximum: 3))
        #expect(blocked)
        #expect(error?.description == "redirects limit exceeded: 4 is more than the maximum of 3; raise HTTPLoaderConfiguration.maxRedirects if this is expected")
    }

    @Test("a redirect to file:// is refused as an unsupported scheme and blocked")
    func redirectToFile() async throws {
        let (error, blocked) = try await failure("/to-file")
        expectTransport(error, .unsupportedScheme)
        #expect(blocked)
    }

    @Test("a header line over libcurl's 100 KiB cap is an invalid response naming the cap, not 'out of memory'")
    func hugeHeaderLine() async throws {
        let (error, blocked) = try await failure("/huge-header-line")
        guard case .invalidResponse(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("a response header line is longer than libcurl accepts (100 KiB, CURL_MAX_HTTP_HEADER"))
        #expect(!reason.localizedCaseInsensitiveContains("out of memory"))
        #expect(!blocked)
    }

    @Test("headers over libcurl's total cap are an invalid response, not a lost connection")
    func hugeHeaders() async throws {
        let (error, _) = try await failure("/huge-headers")
        guard case .invalidResponse(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("the response's headers are larger than libcurl accepts: Too large response headers"))
    }

    @Test("a server answering something that is not HTTP is an invalid response")
    func notHTTP() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        server.route("/garbage") { _, c in
            c.write("SSH-2.0-OpenSSH_9.2\r\n\r\n")
            c.closeIfOpen()
        }
        let error = await loadError(HTTPLoader(configuration: FaultRoutes.testConfiguration()), server.url("/garbage"))
        guard case .invalidResponse(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("the server's answer is not HTTP"))
    }

    @Test("404 is badStatusCode(404) and blocked; 500 and 429 are not blocked")
    func statuses() async throws {
        let (notFound, blocked404) = try await failure("/404")
        #expect(notFound == .badStatusCode(404))
        #expect(blocked404)
        let (serverError, blocked500) = try await failure("/500")
        #expect(serverError == .badStatusCode(500))
        #expect(!blocked500)
        let (tooMany, blocked429) = try await failure("/429")
        #expect(tooMany == .badStatusCode(429))
        #expect(!blocked429)
    }

    @Test("a wrong content type is badContentType carrying the type")
    func wrongContentType() async throws {
        var config = FaultRoutes.testConfiguration()
        config.acceptableContentTypes = ["image/png"]
        let (error, _) = try await failure("/text", config: config)
        #expect(error == .badContentType("text/html"))
    }

    @Test("nothing listening is cannotConnect, transient")
    func refused() async throws {
        let port = TestProcesses.freePort()
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let url = URL(string: "http://127.0.0.1:\(port)/a.png")!
        let error = await loadError(loader, url)
        expectTransport(error, .cannotConnect)
        // libcurl's own words, which name the address, rather than its generic "Couldn't connect to server".
        #expect(error?.description.contains("127.0.0.1 port \(port)") == true, "\(String(describing: error))")
        #expect(!loader.shouldBlockURL(url, error: error!, options: [], context: ImageContext()))
        #expect(!loader.shouldBlockURL(url, error: .cancelled, options: [], context: ImageContext()))
    }

    @Test("retry is off by default; when on, 5xx and 429 (Retry-After) are retried until success")
    func retry() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        FaultRoutes.flaky(server, "/flaky", failures: 2, status: 503)
        FaultRoutes.flaky(server, "/busy", failures: 1, status: 429, headers: ["Retry-After": "1"])
        FaultRoutes.flaky(server, "/once", failures: 1, status: 500)
        #expect(await loadError(HTTPLoader(configuration: FaultRoutes.testConfiguration()), server.url("/once")) == .badStatusCode(500))
        #expect(server.requestCount("/once") == 1)

        var config = FaultRoutes.testConfiguration()
        config.retry = HTTPRetryPolicy(maxRetries: 3, baseDelay: 0.05, maxDelay: 2)
        let loader = HTTPLoader(configuration: config)
        #expect(try await loader.loadTyped(server.url("/flaky")).data == FaultRoutes.image)
        #expect(server.requestCount("/flaky") == 3)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await loader.loadTyped(server.url("/busy")).data == FaultRoutes.image)
        #expect(clock.now - start >= .milliseconds(900), "Retry-After: 1 was not honoured")
        #expect(server.requestCount("/busy") == 2)
        // A permanent failure is never retried.
        #expect(await loadError(loader, server.url("/404")) == .badStatusCode(404))
        #expect(server.requestCount("/404") == 1)
    }
}
