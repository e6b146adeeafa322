import CPNGShim
import Foundation
import PipelineCore

extension PNGCoder: RowStreamingDecoder {
    /// Non-interlaced stills whose file ends with IEND stream; an animation, Adam7 (each row is
    /// spread over seven passes) and a file cut short do not.
    package func withRowSource<Result>(
        of data: Data, mapping: MappedFile?, options: ImageDecodeOptions, _ body: (any ImageRowSource) throws -> Result
    ) throws -> Result? {
        guard canDecode(data) else { throw ImagePipeError.undecodableBytes(data, coder: "PNGCoder", format: .png) }
        let options = limited(options)
        try PNGDecoder.preflight(data, options: options)
        guard let header = PNGHeader(data), !header.isInterlaced, PNGDecoder.readSize(for: data) == nil,
            options.targetSize(for: header.size) == header.size
        else { return nil }
        guard case .still(let ignoredAnimation) = try APNGDecoder.reading(data, options: options) else { return nil }
        // The chunk walk touches every chunk's header, which for 8 KiB IDATs is every page.
        let metadata = PNGMetadataChunks(data, releasingPages: mapping?.releasePages).metadata(in: data, options: options)
        mapping?.releasePages()
        return try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result in
            let reader = try PNGReader(bytes, maxChunkBytes: PNGDecoder.maxChunkBytes(options))
            let layout = try reader.readHeader()
            try options.checkPixelLimit(layout.size)
            let (profile, profileWarning) = reader.colorProfile(options: options)
            let source = PNGRowSource(
                reader: reader, layout: layout, orientation: metadata.orientation ?? .up, colorProfile: profile,
                holdsMetadata: metadata.exif != nil || metadata.xmp != nil || metadata.hasUnread,
                warnings: [profileWarning, ignoredAnimation].compactMap { $0 } + metadata.warnings,
                checkpoint: DecodeCheckpoint(options: options), mapping: mapping)
            return try body(source)
        }
    }
}

extension PNGCoder: RowStreamingEncoder {
    /// Streams unless `maxPixelSize` would shrink the image.
    package func withRowSink<Result>(
        size: ImageSize, pixelFormat: PixelFormat, as format: ImageFormat, options: ImageEncodeOptions,
        fileDescriptor: Int32, _ body: (any ImageRowSink) throws -> Result
    ) throws -> Result? {
        guard canEncode(to: format) else { throw ImagePipeError.unencodableFormat(format, coder: "PNGCoder", format: .png) }
        if options.outputSize(for: size) != size { return nil }
        let level = min(max(options.extras[.pngCompressionLevel] ?? PNGEncoder.defaultCompressionLevel, 0), 9)
        let threads = min(max(options.extras[.pngCompressionThreads] ?? 0, 0), Int(IPNG_STREAM_MAX_THREADS))
        let sink = try PNGRowSink(fileDescriptor: fileDescriptor, size: size, format: pixelFormat, level: level, threads: threads)
        return try body(sink)
    }
}
