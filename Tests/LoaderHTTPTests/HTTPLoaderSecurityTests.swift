import Foundation
import PipelineCore
import TestSupport
import Testing

@testable import LoaderHTTP

@Suite("HTTPLoader: TLS and the SSRF guard")
struct HTTPLoaderSecurityTests {
    @Test("a self-signed certificate is refused by default, accepted with allowInvalidSSLCertificates or as the CA bundle")
    func selfSigned() async throws {
        let server: TestTLSServer
        do {
            server = try TestTLSServer(files: ["image.png": FaultRoutes.image])
        } catch {
            // Only when openssl is missing or cannot listen; the reason is in the error.
            Issue.record("the HTTPS endpoint could not start: \(error)")
            return
        }
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        let error = await loadError(loader, server.url("image.png"))
        guard case .loadFailed(.tls, nil, _) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        let insecure = try await loader.loadTyped(server.url("image.png"), options: .allowInvalidSSLCertificates)
        #expect(insecure.data == FaultRoutes.image)
        var config = FaultRoutes.testConfiguration()
        config.caBundlePath = server.certificatePath
        #expect(try await HTTPLoader(configuration: config).loadTyped(server.url("image.png")).data == FaultRoutes.image)
    }

    /// A loader with the guard on; `allowed` are its exceptions.
    private func guarded(allowing allowed: [String] = []) -> HTTPLoader {
        var config = FaultRoutes.testConfiguration()
        config.blocksPrivateAddresses = true
        config.allowedAddresses = allowed.map { IPAddressRange($0)! }
        return HTTPLoader(configuration: config)
    }

    /// The guard's refusal, or a recorded issue when the load ended any other way.
    private func refusal(_ loader: HTTPLoader, _ url: URL, sourceLocation: SourceLocation = #_sourceLocation) async -> String? {
        let error = await loadError(loader, url)
        let prefix = "transfer failed (blockedAddress): "
        guard case .loadFailed(.blockedAddress, nil, let message) = error, message.hasPrefix(prefix) else {
            Issue.record("\(url) was not refused by the guard: \(String(describing: error))", sourceLocation: sourceLocation)
            return nil
        }
        #expect(loader.shouldBlockURL(url, error: error!, options: [], context: ImageContext()), sourceLocation: sourceLocation)
        return String(message.dropFirst(prefix.count))
    }

    @Test(
        "with the guard on, loopback in every spelling gets no connection at all, https included",
        arguments: [
            "http://127.0.0.1:PORT/a.png", "http://127.1:PORT/a.png", "http://2130706433:PORT/a.png",
            "http://0x7f.0.0.1:PORT/a.png", "http://017700000001:PORT/a.png", "http://localhost:PORT/a.png",
            "http://[::1]:PORT/a.png", "http://[::ffff:127.0.0.1]:PORT/a.png", "https://127.0.0.1:PORT/a.png",
            "https://localhost:PORT/a.png",
        ])
    func loopbackSpellingsGetNoConnection(template: String) async throws {
        let listener = try ConnectionCounter(hosts: ["127.0.0.1", "::1"])
        let url = try #require(URL(string: template.replacingOccurrences(of: "PORT", with: "\(listener.port)")))
        let message = try #require(await refusal(guarded(), url))
        #expect(message.contains("the SSRF guard refused to connect to"))
        #expect(message.contains("loopback address"))
        #expect(listener.count() == 0)
    }

    @Test("the listener the guard tests rely on counts a connection the unguarded loader makes")
    func connectionCounterCounts() async throws {
        let listener = try ConnectionCounter(hosts: ["127.0.0.1", "::1"])
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        async let load = loadError(loader, URL(string: "http://[::ffff:127.0.0.1]:\(listener.port)/a.png")!)
        #expect(await eventually { listener.count() >= 1 })
        #expect(await load != nil)  // The counter closes what it accepts: the load fails.
    }

    @Test("the refusal says the guard refused which address, and how to allow it")
    func refusalMessage() async throws {
        let listener = try ConnectionCounter()
        let message = try #require(await refusal(guarded(), URL(string: "http://127.0.0.1:\(listener.port)/a.png")!))
        #expect(message.contains("127.0.0.1, a loopback address (port \(listener.port))"))
        #expect(message.contains("HTTPLoaderConfiguration.blocksPrivateAddresses is on"))
        #expect(message.contains("HTTPLoaderConfiguration.allowedAddresses"))
        #expect(message.contains("--allow-address 127.0.0.1"))
        let mapped = try #require(await refusal(guarded(), URL(string: "http://[::ffff:127.0.0.1]:\(listener.port)/a.png")!))
        #expect(mapped.contains("::ffff:127.0.0.1, which embeds 127.0.0.1, a loopback address"))
        #expect(listener.count() == 0)
        // A closed port answers exactly as an open one does: the guard is no port-scan oracle.
        let closed = TestProcesses.freePort()
        let closedMessage = try #require(await refusal(guarded(), URL(string: "http://127.0.0.1:\(closed)/a.png")!))
        #expect(closedMessage == message.replacingOccurrences(of: "port \(listener.port)", with: "port \(closed)"))
    }

    @Test("an allowed address loads; its redirect to an address not allowed gets no connection")
    func redirectFromAllowedHost() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let internalHost = try ConnectionCounter(hosts: ["127.0.0.2"])
        server.route("/to-internal") { _, c in
            c.respond(status: 302, headers: ["Location": "http://127.0.0.2:\(internalHost.port)/secret.png"])
        }
        let loader = guarded(allowing: ["127.0.0.1"])
        #expect(try await loader.loadTyped(server.url("/image.png")).data == FaultRoutes.image)
        let message = try #require(await refusal(loader, server.url("/to-internal")))
        #expect(message.contains("127.0.0.2"))
        #expect(server.requestCount("/to-internal") == 1)
        #expect(internalHost.count() == 0)
        // A redirect between allowed addresses is followed.
        #expect(try await loader.loadTyped(server.url("/redirect")).data == FaultRoutes.image)
    }

    @Test("the redirect policy judges every hop's target before it is followed: a refused one gets no connection")
    func redirectPolicy() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let elsewhere = try ConnectionCounter()
        server.route("/away") { _, c in c.respond(status: 302, headers: ["Location": "http://127.0.0.1:\(elsewhere.port)/secret.png"]) }
        server.route("/hop") { _, c in c.respond(status: 301, headers: ["Location": "/away"]) }
        var configuration = FaultRoutes.testConfiguration()
        configuration.redirectPolicy = { url in url.port == server.url("/").port }
        let loader = HTTPLoader(configuration: configuration)
        #expect(try await loader.loadTyped(server.url("/redirect")).data == FaultRoutes.image, "a hop the policy allows is followed")
        for path in ["/away", "/hop"] {
            let error = await #expect(throws: ImagePipeError.self) { try await loader.loadTyped(server.url(path)) }
            #expect(error == .transport(kind: .redirectRefused, message: "the redirect target is not allowed"), "\(path)")
        }
        #expect(elsewhere.count() == 0)
        #expect(server.requestCount("/away") == 2)
    }

    @Test("a CIDR exception allows every address inside it and no other")
    func cidrException() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        #expect(try await guarded(allowing: ["127.0.0.0/30"]).loadTyped(server.url("/image.png")).data == FaultRoutes.image)
        _ = try #require(await refusal(guarded(allowing: ["127.0.0.2/32", "::1"]), server.url("/image.png")))
        #expect(server.requestCount("/image.png") == 1)
    }

    @Test("a connection kept from a transfer without the guard is judged again when the guard is turned on")
    func reusedConnectionIsJudgedAgain() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        let loader = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        #expect(try await loader.loadTyped(server.url("/image.png")).data == FaultRoutes.image)
        loader.configuration.blocksPrivateAddresses = true
        _ = try #require(await refusal(loader, server.url("/image.png?again")))
        #expect(server.requestCount("/image.png") == 1)
        #expect(server.acceptedConnectionCount == 1)
    }
}
