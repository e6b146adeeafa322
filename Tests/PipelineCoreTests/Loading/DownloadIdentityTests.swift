import Foundation
import Testing

@testable import PipelineCore

@Suite("Download identity")
struct DownloadIdentityTests {
    @Test("Options that only change what is done with the bytes do not make another download")
    func decodeSideOptionsDoNotCount() {
        let plain = DownloadIdentity(request: "https://example.com/a.png", options: [])
        for options: ImageOptions in [.progressiveLoad, .decodeFirstFrameOnly, .scaleDownLargeImages, .highPriority, .lowPriority, .retryFailed] {
            #expect(DownloadIdentity(request: "https://example.com/a.png", options: options) == plain)
        }
    }

    @Test(
        "Cookies, certificate checks and revalidation change the bytes fetched: each makes another download",
        arguments: [ImageOptions.handleCookies, .allowInvalidSSLCertificates, .refreshCached])
    func fetchOptionsCount(option: ImageOptions) {
        let plain = DownloadIdentity(request: "https://example.com/a.png", options: [])
        #expect(DownloadIdentity(request: "https://example.com/a.png", options: option) != plain)
        #expect(DownloadIdentity(request: "https://example.com/a.png", options: [option, .progressiveLoad]).options == option)
    }

    @Test("Another request is another download")
    func requestCounts() {
        #expect(DownloadIdentity(request: "https://example.com/a.png", options: []) != DownloadIdentity(request: "https://example.com/b.png", options: []))
    }
}
