import Foundation
import ImagePipe
import LoaderHTTP
import PipelineConformance
import PipelineCore
import TestSupport
import Testing

/// `.refreshCached` through the manager, with the validators kept in the disk cache: what a
/// server restarted (or a second process on the same cache folder) sends its origin.
@Suite("Revalidation across restarts")
struct HTTPRevalidationTests {
    /// An origin that answers `If-None-Match: "v1"` or `If-Modified-Since` with 304 and counts
    /// full and conditional answers.
    final class Origin: Sendable {
        let server: TestHTTPServer
        let full = Counter()
        let conditional = Counter()
        static let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"

        init(headers: [String: String] = ["ETag": "\"v1\"", "Last-Modified": Origin.lastModified]) throws {
            server = try TestHTTPServer()
            server.route("/photo.png") { [full, conditional] request, connection in
                let etagMatches = headers["ETag"] != nil && request.headers["if-none-match"] == headers["ETag"]
                let dateMatches =
                    headers["ETag"] == nil && headers["Last-Modified"] != nil
                    && request.headers["if-modified-since"] == headers["Last-Modified"]
                if etagMatches || dateMatches {
                    conditional.increment()
                    connection.respond(status: 304, headers: headers)
                } else {
                    full.increment()
                    connection.respond(status: 200, headers: headers.merging(["Content-Type": "image/png"]) { $1 }, body: FaultRoutes.image)
                }
            }
        }

        var url: URL { server.url("/photo.png") }
        var counts: (full: Int, conditional: Int) { (full.count, conditional.count) }
    }

    /// A manager as a process would make it: its own memory cache and loader, over `directory`.
    static func manager(directory: URL) -> ImageManager {
        let coders = ImageCodersManager(coders: [OnePixelCoder()])
        let cache = DefaultImageCache(namespace: "revalidation", directory: directory, coders: coders)
        return ImageManager(cache: cache, loader: HTTPLoader(configuration: FaultRoutes.testConfiguration()), coders: coders)
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-revalidation-\(UUID().uuidString)")
    }

    @Test(
        "a second manager on the same cache folder revalidates with the stored ETag: 304 gives the cached image",
        arguments: [
            ["ETag": "\"v1\"", "Last-Modified": Origin.lastModified],
            ["Last-Modified": Origin.lastModified],
        ])
    func refreshCachedAfterRestart(headers: [String: String]) async throws {
        let origin = try Origin(headers: headers)
        defer { origin.server.stop() }
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = Self.manager(directory: directory)
        _ = try await first.loadImage(with: origin.url, options: .waitStoreCache)
        #expect(origin.counts == (1, 0))

        // "After the restart": nothing shared with the first manager but the folder.
        let second = Self.manager(directory: directory)
        var results: [ImageResult] = []
        for await event in second.imageTask(with: origin.url, options: .refreshCached).events {
            if case .completed(let result) = event { results.append(result) }
            if case .failed(let error) = event { Issue.record("failed: \(error)") }
        }
        #expect(origin.counts == (1, 1), "the origin answered in full again instead of 304")
        // The cached image, once: a 304 adds no second answer.
        #expect(results.count == 1)
        #expect(results.first?.cacheType == .disk)
        #expect(results.first?.image?.pixelSize == ImageSize(width: 1, height: 1))
    }

    @Test("validators of a changed image replace the old ones; without validators nothing is sent")
    func changedImageReplacesValidators() async throws {
        let origin = try Origin(headers: [:])
        defer { origin.server.stop() }
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Self.manager(directory: directory).loadImage(with: origin.url, options: .waitStoreCache)
        // No validators stored: the refresh downloads in full (and conditional headers never match).
        _ = try await Self.manager(directory: directory).loadImage(with: origin.url, options: [.refreshCached, .waitStoreCache])
        #expect(origin.counts == (2, 0))
    }
}
