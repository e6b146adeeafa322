import CWebP
import ChildProcessEncoding
import Foundation
import PipelineCore

/// A large still's `WebPEncode` done by a child process when the work can be cancelled, so that a
/// cancelled encode ends within milliseconds. libwebp's progress hook stops an encode only where
/// its percentage changes, and not at all while it writes its tokens out at the end: on a 3500²
/// picture of noise at quality 79, 1 % of the encode is 48 ms of CPU and the last, unstoppable
/// step 315 ms (VP8EmitTokens), four times that at 49 megapixels. The child runs `WebPEncode` and
/// sends the file back through a pipe (`ChildProcessOutput`).
enum WebPChildProcessEncode {
    /// Stills over this many pixels are encoded in a child when their work can be cancelled: at a
    /// megapixel libwebp's last step already takes tens of milliseconds.
    static let minimumPixels = 1024 * 1024

    /// Whether a still of `pixels` is encoded in a child: the work running on this thread can be
    /// cancelled (the pipeline's and the service's work can; a caller's own encode cannot).
    static func isUsed(pixels: Int) -> Bool {
        DecodeCancellation.current != nil && pixels > minimumPixels
    }

    /// The file `WebPEncode` writes for `picture` with `config`, written by a child process.
    static func encode(_ config: inout WebPConfig, _ picture: UnsafeMutablePointer<WebPPicture>) throws -> Data {
        let (data, status) = try ChildProcessOutput.collect(format: "WebP") { ip_webp_encode_in_child(&config, picture, $0) }
        if status == 0 { return data }
        if status == 100 + Int32(VP8_ENC_ERROR_OUT_OF_MEMORY.rawValue) { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
        if status > 100 { throw ImagePipeError.encodingFailed(reason: "libwebp failed (error \(status - 100))") }
        throw ImagePipeError.encodingFailed(reason: "the process encoding WebP ended without its result (status \(status))")
    }
}
