import Testing

@testable import PipelineCore

@Suite("Credentials in logged URLs")
struct CredentialRedactionTests {
    @Test(
        "user names and passwords in URLs, plain or percent-encoded, become ***; everything else stays",
        arguments: [
            ("GET /*/rs:fit:10:10/plain/http://alice:s3cret@origin.example/a.jpg 200", "GET /*/rs:fit:10:10/plain/http://***@origin.example/a.jpg 200"),
            ("https://token@cdn.example/x.png?sig=1", "https://***@cdn.example/x.png?sig=1"),
            ("/plain/http%3A%2F%2Falice%3As3cret%40origin.example%2Fa.jpg", "/plain/http%3A%2F%2F***%40origin.example%2Fa.jpg"),
            ("two: http://a:b@h1/x and https://c@h2/y", "two: http://***@h1/x and https://***@h2/y"),
            ("http://user:p@ss@host/x", "http://***@host/x"),
            ("no credentials: https://example.com/a@b.png and mailto alice@example.com", "no credentials: https://example.com/a@b.png and mailto alice@example.com"),
            ("plain text", "plain text"),
        ])
    func redacted(text: String, expected: String) {
        #expect(CredentialRedaction.redacting(text) == expected)
    }
}
