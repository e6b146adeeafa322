import CGIF
import Foundation
import PipelineCore

/// Feeds giflib from memory: the reads of one `DGifOpen` handle come from a list of byte ranges of
/// the file, read in order as if they were one stream. Every read is bounds-checked; a read past
/// the end returns fewer bytes, which giflib reports as a read error (never an overrun).
final class GIFByteReader {
    private let data: Data
    private let segments: [Range<Int>]
    private var segment = 0
    private var offsetInSegment = 0
    /// Bytes served so far (with one segment: the offset in the file).
    private(set) var position = 0

    init(_ data: Data, segments: [Range<Int>]? = nil) {
        self.data = data
        self.segments = segments ?? [0..<data.count]
    }

    /// Moves a single-segment reader forward past bytes parsed without giflib.
    func skip(to offset: Int) {
        precondition(segments.count == 1 && offset >= position)
        let end = min(offset, segments[0].count)
        offsetInSegment = end
        position = end
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        var served = 0
        data.withUnsafeBytes { bytes in
            while served < count, segment < segments.count {
                let range = segments[segment]
                let available = range.count - offsetInSegment
                if available <= 0 {
                    segment += 1
                    offsetInSegment = 0
                    continue
                }
                let take = min(available, count - served)
                (buffer + served).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + range.lowerBound + offsetInSegment, count: take)
                served += take
                offsetInSegment += take
            }
        }
        position += served
        return served
    }
}

/// A giflib decoding handle on a `GIFByteReader`.
///
/// Ownership, written once: giflib keeps the reader only as an unretained pointer in
/// `GifFileType.UserData`; this value holds the strong reference, so the reader lives exactly as long
/// as the handle, and `deinit` closes the handle (which frees everything giflib allocated).
struct GIFFile: ~Copyable {
    let handle: UnsafeMutablePointer<GifFileType>
    let reader: GIFByteReader

    init(_ reader: GIFByteReader) throws {
        var error: Int32 = 0
        let context = Unmanaged.passUnretained(reader).toOpaque()
        let handle = DGifOpen(
            context,
            { file, buffer, count in
                guard let file, let buffer, count > 0, let context = file.pointee.UserData else { return 0 }
                let reader = Unmanaged<GIFByteReader>.fromOpaque(context).takeUnretainedValue()
                return Int32(reader.read(into: buffer, count: Int(count)))
            }, &error)
        guard let handle else { throw GIFFile.error(error) }
        self.handle = handle
        self.reader = reader
    }

    deinit {
        var error: Int32 = 0
        _ = DGifCloseFile(handle, &error)
    }

    /// The error giflib recorded on this handle.
    var lastError: ImagePipeError { GIFFile.error(handle.pointee.Error) }

    static func error(_ code: Int32) -> ImagePipeError {
        let message = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return ImagePipeError.badImageData(reason: "GIF: \(message)")
    }
}
