import Foundation
import ImagePipe
import LoaderHTTP
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

/// The core reads flags and keys that ImagePipe and LoaderHTTP declare, through constants of its
/// own: they must be the same bits and names.
@Suite("Core constants")
struct CoreConstantsTests {
    @Test("The core's copies of the engine's and the HTTP loader's flags have their bits")
    func flagBits() {
        #expect(ImageOptions.coreLowPriority == .lowPriority)
        #expect(ImageOptions.coreHighPriority == .highPriority)
        #expect(ImageOptions.coreScaleDownLargeImages == .scaleDownLargeImages)
        #expect(ImageOptions.coreDecodeFirstFrameOnly == .decodeFirstFrameOnly)
        #expect(ImageOptions.corePreloadAllFrames == .preloadAllFrames)
        #expect(ImageOptions.coreHandleCookies == .handleCookies)
        #expect(ImageOptions.coreAllowInvalidSSLCertificates == .allowInvalidSSLCertificates)
    }

    @Test("The core's copies of the decode keys have their names")
    func keyNames() {
        #expect(ImageContext.Key<ImageDecodeOptions>.coreDecodeOptions.name == ImageContext.Key<ImageDecodeOptions>.decodeOptions.name)
        #expect(ImageContext.Key<ImageSize>.coreThumbnailPixelSize.name == ImageContext.Key<ImageSize>.thumbnailPixelSize.name)
        #expect(ImageContext.Key<Bool>.corePreserveAspectRatio.name == ImageContext.Key<Bool>.preserveAspectRatio.name)
        #expect(ImageContext.Key<Double>.coreScaleFactor.name == ImageContext.Key<Double>.scaleFactor.name)
        #expect(
            ImageContext.Key<ImageMetadataHandling>.coreMetadataHandling.name == ImageContext.Key<ImageMetadataHandling>.metadataHandling.name)
        #expect(ImageContext.Key<Int>.coreScaleDownLimitBytes.name == ImageContext.Key<Int>.scaleDownLimitBytes.name)
    }

    @Test("The command line's table names the HTTP flags by their bits")
    func namedHTTPFlags() {
        #expect(ImageOptions(name: "handleCookies") == .handleCookies)
        #expect(ImageOptions(name: "allowInvalidSSLCertificates") == .allowInvalidSSLCertificates)
    }
}
