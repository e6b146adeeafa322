import Foundation

/// Turns downloaded bytes into image bytes (decrypts, unwraps), or refuses them (nil), which fails
/// the load with `badImageData`. SDWebImage's `SDWebImageDownloaderDecryptor`.
public struct ImageDecryptor: Sendable {
    public let decrypt: @Sendable (Data, HTTPLoadResponse?) -> Data?
    public init(_ decrypt: @escaping @Sendable (Data, HTTPLoadResponse?) -> Data?) { self.decrypt = decrypt }

    /// Bytes that are the base64 text of the image.
    public static let base64 = ImageDecryptor { data, _ in
        Data(base64Encoded: data, options: .ignoreUnknownCharacters)
    }
}
