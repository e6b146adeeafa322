import Foundation
import LoaderHTTP
import PipelineCore
import Testing

@Suite("HTTP requests and responses as modifiers see them")
struct HTTPLoadRequestTests {
    @Test("Request and response helpers read headers case-insensitively")
    func requestResponse() {
        let modifier = HTTPRequestModifier.setting(headers: ["accept": "image/webp"], method: "HEAD")
        let request = modifier.modify(HTTPLoadRequest(url: URL(string: "https://x.test")!, headers: ["Accept": "*/*"]))
        #expect(request?.header("ACCEPT") == "image/webp")
        #expect(request?.headers.count == 1)
        #expect(request?.method == "HEAD")
        let response = HTTPLoadResponse(
            url: URL(string: "https://x.test")!, statusCode: 200,
            headers: ["content-type": "Image/PNG; charset=binary", "Content-Length": " 42"])
        #expect(response.mimeType == "image/png")
        #expect(response.expectedContentLength == 42)
        #expect(ImageDecryptor.base64.decrypt(Data("aGk=".utf8), nil) == Data("hi".utf8))
    }

    @Test("A load's result gives the HTTP response back typed, and nothing for other loaders' results")
    func resultResponse() {
        let response = HTTPLoadResponse(url: URL(string: "https://x.test/a.png")!, statusCode: 200)
        #expect(ImageLoadResult(data: Data(), response: response).httpResponse == response)
        #expect(ImageLoadResult(data: Data()).httpResponse == nil)
    }
}
