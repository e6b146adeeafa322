import CodersPNG
import Foundation
import Hummingbird
import HummingbirdTesting
import PipelineConformance
import PipelineCore

@testable import ImageServer

/// An origin on loopback serving test images, and a server configured to fetch from it (the SSRF
/// guard off, as for a private origin) with one signing key.
struct ServerFixture {
    static let key = URLSigningKey(keyHex: "0123456789abcdef", saltHex: "fedcba9876543210")!

    let origin: TestHTTPServer
    var configuration = ImageServerConfiguration()

    init() throws {
        origin = try TestHTTPServer()
        configuration.port = 0
        configuration.signingKeys = [Self.key]
        configuration.allowsPrivateSources = true
        configuration.workers = 2
        // A deadline no loaded machine reaches: the suites share two cores with every other test,
        // and a 503 from the 10 s default would time the machine. Tests of the deadline set theirs.
        configuration.requestTimeout = .seconds(120)
        origin.serveBytes("/photo.png", Self.png(width: 64, height: 48), contentType: "image/png")
    }

    /// This fixture with its configuration changed: the same origin.
    func with(_ change: (inout ImageServerConfiguration) -> Void) -> ServerFixture {
        var copy = self
        change(&copy.configuration)
        return copy
    }

    func makeServer() -> ImageServer { ImageServer(configuration: configuration) }

    /// `/{signature}{path}`, `path` starting with `/` (options, then the source).
    static func signed(_ path: String) -> String { "/" + key.signature(for: path) + path }

    /// A signed URL for `options` (slash-separated, may be empty) on the origin's `originPath`.
    func url(_ options: String, _ originPath: String, ext: String? = nil) -> String {
        let source = origin.baseURL + originPath
        let encoded = Data(source.utf8).base64URLEncodedWithoutPadding
        return Self.signed((options.isEmpty ? "" : "/" + options) + "/" + encoded + (ext.map { "." + $0 } ?? ""))
    }

    /// An opaque RGB gradient as PNG.
    static func png(width: Int, height: Int) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height { for x in 0..<width { bytes += [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), 90] } }
        let buffer = try! PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes)
        return try! PNGCoder().encode(Image(buffer, format: .png), as: .png, options: ImageEncodeOptions())
    }

    /// The size of the PNG, JPEG or WebP in `data`, decoded.
    static func size(of data: Data) throws -> ImageSize {
        try ImageServer.defaultCoders().decode(data, options: ImageDecodeOptions()).pixelSize
    }
}
