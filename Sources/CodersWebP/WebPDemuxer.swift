import CWebP
import Foundation
import PipelineCore

/// libwebp's demuxer over a private copy of the file's bytes.
///
/// Ownership: the demuxer keeps pointers into the bytes it was given (it never copies them), so
/// this value owns both, and `deinit` frees the demuxer before the bytes. Being `~Copyable`, it can
/// neither be duplicated nor outlive its bytes; callers reach it only while they hold it (in
/// practice inside the provider's `Mutex`).
struct WebPDemuxer: ~Copyable {
    let demux: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer

    /// Parses the container. `partial` accepts a file whose bytes are still arriving (the
    /// incremental decoder's case); it then returns nil until the header can be read.
    init?(_ data: Data, partial: Bool = false) throws {
        guard !data.isEmpty else { throw ImagePipeError.badImageData(reason: "no bytes") }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.copyBytes(to: bytes)
        var webpData = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: data.count)
        var state = WEBP_DEMUX_PARSE_ERROR
        let demux = partial ? WebPDemuxPartial(&webpData, &state) : WebPDemux(&webpData)
        guard let demux else {
            bytes.deallocate()
            if partial && state != WEBP_DEMUX_PARSE_ERROR { return nil }
            throw ImagePipeError.badImageData(reason: "not a WebP file, or its RIFF chunks are corrupt or truncated")
        }
        self.demux = demux
        self.bytes = bytes
    }

    deinit {
        WebPDemuxDelete(demux)
        bytes.deallocate()
    }

    var canvasSize: ImageSize {
        ImageSize(
            width: Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)),
            height: Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT)))
    }

    var flags: UInt32 { WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) }
    var isAnimated: Bool { flags & ANIMATION_FLAG.rawValue != 0 }
    var hasAlphaFlag: Bool { flags & ALPHA_FLAG.rawValue != 0 }
    var frameCount: Int { Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT)) }
    var loopCount: Int { Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT)) }

    /// Frame `index` (0-based) with its fragment, passed to `body` while the bytes are alive.
    func withFrame<R>(_ index: Int, _ body: (WebPIterator) throws -> R) throws -> R {
        var iterator = WebPIterator()
        guard index >= 0, index < Int(Int32.max),
            WebPDemuxGetFrame(demux, Int32(index + 1), &iterator) != 0
        else { throw ImagePipeError.badImageData(reason: "WebP frame \(index) is missing") }
        defer { WebPDemuxReleaseIterator(&iterator) }
        return try body(iterator)
    }
}

extension WebPIterator {
    var fragmentBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: fragment.bytes, count: fragment.size)
    }
}
