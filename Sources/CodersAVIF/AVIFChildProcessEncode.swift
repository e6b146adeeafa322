import CAVIF
import ChildProcessEncoding
import Foundation
import PipelineCore

/// An image's (or a grid cell's) encoding done by a child process when the work can be cancelled,
/// so that a cancelled encode ends within milliseconds: libavif 0.11 and libaom cannot stop inside
/// an image, and at speed 5 one 512-pixel cell takes 0.2 to 0.5 s of CPU (a 1536² crop of noise
/// 483 ms a cell, of a photo 221–243 ms). Cells small enough to stop between (128 pixels, 35 ms on
/// noise) cost photos up to twice the bytes; a child costs a fork, about a millisecond, and no byte.
/// The child runs `avifEncoderWrite` and sends the file back through a pipe (`ChildProcessOutput`).
enum AVIFChildProcessEncode {
    /// Images over this many pixels are encoded in a child process when their work can be
    /// cancelled: at speed 5 a 256 x 256 image takes tens of milliseconds, a larger one more.
    static let minimumPixels = 256 * 256

    /// Whether an image of `pixels` is encoded in a child: the work running on this thread can be
    /// cancelled (the pipeline's and the service's work can; a caller's own encode cannot).
    static func isUsed(pixels: Int) -> Bool {
        DecodeCancellation.current != nil && pixels > minimumPixels
    }

    /// The file `encoder` writes for `image`, written by a child process. The encoder must use one thread.
    static func write(_ image: UnsafeMutablePointer<avifImage>, encoder: UnsafeMutablePointer<avifEncoder>) throws -> Data {
        let (data, status) = try ChildProcessOutput.collect(format: "AVIF") { ip_avif_encode_in_child(encoder, image, $0) }
        if status == 0 { return data }
        // libavif's diagnostics stayed in the child: its result says what failed.
        if status > 100 { throw AVIFError.encoding(avifResult(rawValue: UInt32(status - 100)), avifDiagnostics()) }
        throw ImagePipeError.encodingFailed(reason: "the process encoding AVIF ended without its result (status \(status))")
    }
}
