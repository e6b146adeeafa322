import CJXL
import ChildProcessEncoding
import Foundation
import PipelineCore

/// A large still's encoding done by a child process, so that a cancelled encode ends at once:
/// libjxl 0.7's encoder cannot stop inside a frame (its parallel runner's failures reach
/// `JXL_CHECK`s that abort the process; 14 call sites in 0.7), and a frame of tens of megapixels
/// takes seconds. The encoder is set up and given its frame here; a forked copy of the process
/// runs libjxl's encoding to its end and sends the bytes back through a pipe (`ChildProcessOutput`).
///
/// Encoding such a still as several layers (cropped frames libjxl composites) stops between
/// layers too, but libjxl 0.7 decodes a layered file several times slower (each layer redraws
/// the whole canvas: 9 layers of 26 MP, 6 times the time), so every reader would pay for it.
enum JXLChildProcessEncode {
    /// Stills over this many pixels are encoded in a child process: 4 megapixels (2048 x 2048),
    /// as AVIF's grids; below, an encode takes a fraction of a second and a fork costs more than
    /// it saves.
    static let minimumPixels = 2048 * 2048

    /// The bytes of `encoder`, whose input is all added and closed, encoded by a child process.
    /// The encoder must use `ip_jxl_sequential_runner`.
    static func output(of encoder: OpaquePointer) throws -> Data {
        let (data, status) = try ChildProcessOutput.collect(format: "JPEG XL") { ip_jxl_encode_in_child(encoder, $0) }
        if status == 0 { return data }
        if status == 100 + Int32(JXL_ENC_ERR_OOM.rawValue) { throw ImagePipeError.limitExceeded(.bytes, value: .max, maximum: .max) }
        if status > 100 { throw ImagePipeError.encodingFailed(reason: "libjxl failed encoding the frame (error \(status - 100))") }
        throw ImagePipeError.encodingFailed(reason: "the process encoding JPEG XL ended without its result (status \(status))")
    }
}
