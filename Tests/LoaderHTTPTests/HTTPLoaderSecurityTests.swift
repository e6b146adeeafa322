import Foundation
@testable import LoaderHTTP
import PipelineCore
import Testing
import TestSupport

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
        guard case .transport(.tls, _) = error else { Issue.record("got \(String(describing: error))"); return }
        let insecure = try await loader.loadTyped(server.url("image.png"), options: .allowInvalidSSLCertificates)
        #expect(insecure.data == FaultRoutes.image)
        var config = FaultRoutes.testConfiguration()
        config.caBundlePath = server.certificatePath
        #expect(try await HTTPLoader(configuration: config).loadTyped(server.url("image.png")).data == FaultRoutes.image)
    }

    @Test("the SSRF guard refuses loopback by address and by a name resolving to it, before any request")
    func ssrfGuard() async throws {
        let server = try FaultRoutes.server()
        defer { server.stop() }
        var config = FaultRoutes.testConfiguration()
        config.blocksPrivateAddresses = true
        let guarded = HTTPLoader(configuration: config)
        let open = HTTPLoader(configuration: FaultRoutes.testConfiguration())
        #expect(try await open.loadTyped(server.url("/image.png")).data == FaultRoutes.image)
        for url in [server.url("/image.png"), URL(string: "http://localhost:\(server.port)/image.png")!] {
            guard case .invalidDownloadOperation(let reason) = await loadError(guarded, url) else {
                Issue.record("\(url) was not refused")
                continue
            }
            #expect(reason.contains("refused to connect"))
        }
        #expect(server.requestCount("/image.png") == 1)
    }

    @Test("address classification", arguments: [
        ("127.0.0.1", true), ("10.1.2.3", true), ("172.16.0.1", true), ("172.32.0.1", false),
        ("192.168.1.1", true), ("169.254.169.254", true), ("100.64.0.1", true), ("0.0.0.0", true),
        ("224.0.0.1", true), ("255.255.255.255", true), ("8.8.8.8", false), ("93.184.216.34", false),
        ("::1", true), ("::", true), ("fe80::1", true), ("fd00::1", true), ("ff02::1", true),
        ("::ffff:127.0.0.1", true), ("::ffff:8.8.8.8", false), ("2606:4700::1111", false), ("nonsense", true),
    ])
    func addressClassification(address: String, refused: Bool) {
        #expect(AddressGuard.isRefused(address) == refused)
    }
}
