import LoaderHTTP
import PipelineCore
import Testing

@Suite("LoaderHTTP's errors")
struct ImagePipeErrorHTTPTests {
    @Test("Codes are SDWebImage's: a bad status is 2001, a failed transfer 3000")
    func codes() {
        #expect(ImagePipeError.badStatusCode(404).code == 2001)
        #expect(ImagePipeError.transport(kind: .timedOut, message: "t").code == 3000)
        #expect(ImagePipeError.transport(kind: .blockedAddress, message: "t").code == 3000)
    }

    @Test(
        "Messages read as before the failures moved out of the core",
        arguments: [
            (ImagePipeError.badStatusCode(404), "the server answered HTTP 404"),
            (.transport(kind: .timedOut, message: "no answer in 15 s"), "transfer failed (timedOut): no answer in 15 s"),
        ])
    func messages(error: ImagePipeError, message: String) {
        #expect(error.description == message)
        #expect(error.errorDescription == message)
    }

    @Test("A bad status is caught typed, with its status; other errors have none")
    func statusCode() {
        guard case .loadFailed(.httpStatus, let status?, _) = ImagePipeError.badStatusCode(410) else {
            Issue.record("not an httpStatus failure")
            return
        }
        #expect(status == 410)
        #expect(ImagePipeError.badStatusCode(503).httpStatusCode == 503)
        #expect(ImagePipeError.transport(kind: .tls, message: "").httpStatusCode == nil)
    }

    @Test("Transient transport failures and cancellation never count as permanent")
    func permanence() {
        #expect(ImagePipeError.LoadFailure.timedOut.isTransient)
        #expect(ImagePipeError.LoadFailure.connectionLost.isTransient)
        #expect(!ImagePipeError.LoadFailure.tls.isTransient)
        #expect(!ImagePipeError.LoadFailure.blockedAddress.isTransient)
        #expect(!ImagePipeError.transport(kind: .tls, message: "").blocksURLByDefault)
    }
}
