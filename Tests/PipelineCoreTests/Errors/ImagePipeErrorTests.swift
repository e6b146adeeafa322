import Testing

@testable import PipelineCore

@Suite("Errors")
struct ImagePipeErrorTests {
    @Test("Codes are SDWebImage's where it has one")
    func codes() {
        #expect(ImagePipeError.invalidURL("").code == 1000)
        #expect(ImagePipeError.badImageData(reason: "").code == 1001)
        #expect(ImagePipeError.cacheNotModified.code == 1002)
        #expect(ImagePipeError.blockedURL("u").code == 1003)
        #expect(ImagePipeError.invalidDownloadOperation(reason: "").code == 2000)
        #expect(ImagePipeError.cancelled.code == 2002)
        #expect(ImagePipeError.invalidResponse(reason: "").code == 2003)
        #expect(ImagePipeError.badContentType("text/html").code == 2004)
        #expect(ImagePipeError.frameOutOfRange(index: 99, frameCount: 12).code == 3006)
    }

    @Test(
        "Messages name what went wrong and what to do",
        arguments: [
            (ImagePipeError.invalidURL(""), "invalid URL: the URL is empty"),
            (.blockedURL("https://x.test/a.png"), "blocked URL: 'https://x.test/a.png' failed permanently before; use the retryFailed option to try it again"),
            (.badContentType("text/html"), "unacceptable content type 'text/html'"),
            (
                .limitExceeded(.pixels, value: 4_294_836_225, maximum: 100_000_000),
                "pixels limit exceeded: 4294836225 is more than the maximum of 100000000; raise ImageDecodeOptions.maxPixels if this is expected"
            ),
            (.limitExceeded(.pixels, value: .max, maximum: 100), "pixels limit exceeded: the size overflows; the file's header is corrupt or hostile"),
            (.unsupportedFormat(.jpeg, reason: "12-bit samples"), "unsupported format 'jpeg': 12-bit samples"),
            (.loadFailed(.testPluginRefused, status: 7, message: "the plugin refused: reason 7"), "the plugin refused: reason 7"),
            (.cancelled, "cancelled"),
            (.frameOutOfRange(index: 99, frameCount: 12), "frame 99 is out of range: the image has 12 frames (0–11)"),
            (.frameOutOfRange(index: 1, frameCount: 1), "frame 1 is out of range: the image has 1 frame (0)"),
            (.frameOutOfRange(index: .max, frameCount: 12), "frame 9223372036854775807 is out of range: the image has 12 frames (0–11)"),
        ])
    func messages(error: ImagePipeError, message: String) {
        #expect(error.description == message)
        #expect(error.errorDescription == message)
    }

    @Test("A loader's own failure reports its code, and neither it nor cancellation counts as permanent")
    func permanence() {
        #expect(ImagePipeError.loadFailed(.testPluginRefused, status: nil, message: "").code == 3100)
        #expect(!ImagePipeError.loadFailed(.testPluginRefused, status: nil, message: "").blocksURLByDefault)
        #expect(!ImagePipeError.cancelled.blocksURLByDefault)
        #expect(ImagePipeError.badImageData(reason: "").blocksURLByDefault)
    }
}

extension ImagePipeError.LoadFailure {
    /// A failure a plugin declares, as LoaderHTTP declares its own.
    static let testPluginRefused = Self(name: "testPluginRefused", code: 3100, isTransient: false)
}
