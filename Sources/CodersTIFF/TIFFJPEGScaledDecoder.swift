import CJPEG
import CJPEGShim
import CTIFF
import CTIFFShim
import PipelineCore

/// A thumbnail of a JPEG-compressed page, its strips or tiles decoded by libjpeg at 1/2, 1/4 or
/// 1/8 scale straight into the row sink: the IDCT does most of the shrink, as for a JPEG file.
/// libtiff offers no DCT scaling, so each strip or tile (an abbreviated JPEG whose tables are in
/// the JPEGTables tag) is read raw and joined to those tables into one stream for libjpeg.
///
/// Only what libtiff would decode the same way: 8-bit YCbCr (converted to RGB), or RGB or gray
/// stored as they are (every component at full resolution), samples interleaved, no alpha. Anything about a strip or tile this reader does not expect (its JPEG
/// header's size or components, a libjpeg warning) throws `Unsuitable` before the page is done,
/// and the caller has libtiff decode the page instead, reporting what is wrong as it does.
enum TIFFJPEGScaledDecoder {
    struct Unsuitable: Error {}

    /// libjpeg's `scale_denom` for `layout` at `target`: the largest of 8, 4 and 2 whose output
    /// still covers the target (as `CodersJPEG` picks it) and that divides the strips or tiles, so
    /// each scales to whole rows and columns of the page; 1 when this reader does not take the page.
    static func scaleDenominator(_ layout: TIFFPageLayout, target: ImageSize) -> Int {
        guard layout.isNative, layout.compression == COMPRESSION_JPEG, layout.bitsPerSample == 8, !layout.isPlanar, layout.alpha == .none
        else { return 1 }
        switch layout.model {
        case .rgb where layout.samplesPerPixel == 3: break
        case .gray(minIsWhite: false) where layout.samplesPerPixel == 1: break
        default: return 1
        }
        let size = layout.size, block = layout.blockSize
        guard !target.isEmpty, target != size else { return 1 }
        // One strip need not divide. Tiles cut by the page's edge must be cut on a multiple of the
        // scale too: past the edge a tile holds whatever its writer padded it with (often black),
        // which a scaled pixel straddling the edge would average in. (A strip's JPEG ends at the
        // page, and libjpeg's encoder pads it by repeating the last row and column.)
        let rowsDivide = { (denominator: Int) in
            layout.isTiled
                ? block.height % denominator == 0 && size.height % block.height % denominator == 0
                : block.height % denominator == 0 || block.height >= size.height
        }
        let columnsDivide = { (denominator: Int) in
            !layout.isTiled || (block.width % denominator == 0 && size.width % block.width % denominator == 0)
        }
        for denominator in [8, 4, 2]
        where rowsDivide(denominator) && columnsDivide(denominator)
            && (size.width + denominator - 1) / denominator >= target.width
            && (size.height + denominator - 1) / denominator >= target.height
        {
            return denominator
        }
        return 1
    }

    /// The page at `target`, through libjpeg at 1/`denominator` scale.
    static func decode(
        _ file: TIFFFile, layout: TIFFPageLayout, denominator: Int, target: ImageSize, options: ImageDecodeOptions, checkpoint: DecodeCheckpoint
    ) throws -> PixelBuffer {
        let size = layout.size, block = layout.blockSize
        let scaled = ImageSize(width: (size.width + denominator - 1) / denominator, height: (size.height + denominator - 1) / denominator)
        var blocks = try BlockReader(file, layout: layout, denominator: denominator, scaled: scaled, target: target, options: options)
        let channels = layout.samplesPerPixel
        let scaledRowBytes = scaled.width * channels
        // Tiles: one band of scaled rows, assembled from a row of tiles.
        var band = [UInt8](repeating: 0, count: layout.isTiled ? (block.height + denominator - 1) / denominator * scaledRowBytes : 0)
        return try TIFFRowSink.collect(size: scaled, format: layout.outputFormat, target: target) { sink in
            for y0 in stride(from: 0, to: size.height, by: block.height) {
                try checkpoint.check()
                let rows = (min(block.height, size.height - y0) + denominator - 1) / denominator
                if !layout.isTiled {
                    let strip = UInt32(y0 / block.height)
                    try blocks.decode(strip, rows: min(block.height, size.height - y0), columns: size.width) { row, bytes in
                        if row < rows { sink.addRow(copying: bytes) }
                    }
                    continue
                }
                for x0 in stride(from: 0, to: size.width, by: block.width) {
                    let tile = TIFFComputeTile(file.handle, UInt32(x0), UInt32(y0), 0, 0)
                    let columns = min(block.width, size.width - x0)
                    let offset = x0 / denominator * channels
                    let count = (columns + denominator - 1) / denominator * channels
                    try band.withUnsafeMutableBufferPointer { band in
                        try blocks.decode(tile, rows: block.height, columns: block.width) { row, bytes in
                            if row < rows { (band.baseAddress! + row * scaledRowBytes + offset).update(from: bytes, count: count) }
                        }
                    }
                }
                band.withUnsafeBufferPointer { band in
                    for row in 0..<rows { sink.addRow(copying: band.baseAddress! + row * scaledRowBytes) }
                }
            }
        }
    }

    /// One libjpeg decompressor for every strip or tile of a page, and the stream it reads:
    /// the JPEGTables (without their EOI) followed by one strip or tile (without its SOI).
    private struct BlockReader {
        let file: TIFFFile
        let layout: TIFFPageLayout
        let denominator: Int
        let decoder: OpaquePointer
        let owner: DecoderOwner
        let maxDecoderMemory: Int
        /// Bytes of the tables kept in front of every block.
        let prefixCount: Int
        /// Whether the resample after the DCT scale still halves the image, so libjpeg's cheaper
        /// merged chroma upsampling is enough (as `CodersJPEG` decides it).
        let leavesTwiceForResample: Bool
        var stream: [UInt8]
        var row: [UInt8]

        init(_ file: TIFFFile, layout: TIFFPageLayout, denominator: Int, scaled: ImageSize, target: ImageSize, options: ImageDecodeOptions) throws {
            self.file = file
            self.layout = layout
            self.denominator = denominator
            maxDecoderMemory = options.maxDecoderMemory
            leavesTwiceForResample = scaled.width >= 2 * target.width && scaled.height >= 2 * target.height
            if let tables = file.bytes(UInt32(TIFFTAG_JPEGTABLES)) {
                let bytes = UnsafeRawBufferPointer(start: tables.pointer, count: tables.count)
                guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9 else {
                    throw Unsuitable()
                }
                stream = Array(bytes.prefix(bytes.count - 2))
            } else {
                stream = []
            }
            prefixCount = stream.count
            row = [UInt8](repeating: 0, count: (layout.blockSize.width + denominator - 1) / denominator * layout.samplesPerPixel)
            guard let decoder = ijpeg_decoder_create() else { throw ImagePipeError.badImageData(reason: "TIFF: out of memory for libjpeg") }
            self.decoder = decoder
            owner = DecoderOwner(decoder)
            ijpeg_decoder_set_limits(decoder, options.maxDecoderMemory, 0, nil, nil)
        }

        /// Decodes strip or tile `index`, `rows` by `columns` pixels at full size, handing each
        /// scaled output row (and its number) to `take`.
        mutating func decode(_ index: UInt32, rows: Int, columns: Int, _ take: (Int, UnsafePointer<UInt8>) throws -> Void) throws {
            let byteCount = Int(clamping: TIFFGetStrileByteCount(file.handle, index))
            guard byteCount >= 4, byteCount <= file.fileSize else { throw Unsuitable() }
            try checkMemory(prefixCount + byteCount)
            // The block's SOI lands on the tables' last two bytes, which are put back after.
            let start = max(prefixCount - 2, 0)
            if stream.count < start + byteCount { stream += [UInt8](repeating: 0, count: start + byteCount - stream.count) }
            let saved = prefixCount >= 2 ? (stream[start], stream[start + 1]) : (0, 0)
            let read = stream.withUnsafeMutableBytes { buffer in
                let into = buffer.baseAddress! + start
                return Int(
                    layout.isTiled
                        ? TIFFReadRawTile(file.handle, index, into, tmsize_t(byteCount)) : TIFFReadRawStrip(file.handle, index, into, tmsize_t(byteCount)))
            }
            guard read == byteCount, stream[start] == 0xFF, stream[start + 1] == 0xD8 else { throw Unsuitable() }
            if prefixCount >= 2 { (stream[start], stream[start + 1]) = saved }
            let length = start + byteCount
            try stream.withUnsafeBufferPointer { stream in
                ijpeg_decoder_use_bytes(decoder, stream.baseAddress, length)
                try decodeStream(rows: rows, columns: columns, take)
            }
        }

        private func checkMemory(_ bytes: Int) throws {
            guard bytes <= maxDecoderMemory else { throw ImagePipeError.limitExceeded(.decoderMemory, value: bytes, maximum: maxDecoderMemory) }
        }

        private mutating func decodeStream(rows: Int, columns: Int, _ take: (Int, UnsafePointer<UInt8>) throws -> Void) throws {
            guard ijpeg_read_header(decoder) == IJPEG_OK else { throw Unsuitable() }
            let info = ijpeg_decoder_info(decoder)!
            // libtiff takes a last strip whose JPEG is still the full strip height; otherwise the
            // JPEG must be exactly the strip or tile.
            let height = Int(info.pointee.image_height)
            guard Int(info.pointee.image_width) == columns, height >= rows, height <= layout.blockSize.height,
                Int(info.pointee.num_components) == layout.samplesPerPixel
            else { throw Unsuitable() }
            // libtiff's settings: YCbCr converted to RGB, anything else passed through.
            if layout.isJPEGYCbCr {
                info.pointee.jpeg_color_space = JCS_YCbCr
                info.pointee.out_color_space = JCS_RGB
            } else {
                // libtiff hands subsampled components out raw, which this reader does not.
                for component in 0..<layout.samplesPerPixel {
                    let sampling = info.pointee.comp_info[component]
                    guard sampling.h_samp_factor == 1, sampling.v_samp_factor == 1 else { throw Unsuitable() }
                }
                info.pointee.jpeg_color_space = JCS_UNKNOWN
                info.pointee.out_color_space = JCS_UNKNOWN
            }
            info.pointee.scale_num = 1
            info.pointee.scale_denom = UInt32(denominator)
            if leavesTwiceForResample { info.pointee.do_fancy_upsampling = 0 }
            guard ijpeg_start_decompress(decoder) == IJPEG_OK,
                Int(info.pointee.output_width) == (columns + denominator - 1) / denominator,
                Int(info.pointee.output_components) == layout.samplesPerPixel
            else { throw Unsuitable() }
            let outputHeight = Int(info.pointee.output_height)
            try row.withUnsafeMutableBufferPointer { row in
                var pointer: UnsafeMutablePointer<UInt8>? = row.baseAddress
                for y in 0..<outputHeight {
                    var got: UInt32 = 0
                    guard ijpeg_read_scanlines(decoder, &pointer, 1, &got) == IJPEG_OK, got == 1 else { throw Unsuitable() }
                    try take(y, row.baseAddress!)
                }
            }
            guard ijpeg_finish_decompress(decoder) == IJPEG_OK, ijpeg_decoder_warning_count(decoder) == 0 else { throw Unsuitable() }
        }
    }

    /// Destroys the decompressor when the reader is done with it.
    private final class DecoderOwner {
        let decoder: OpaquePointer
        init(_ decoder: OpaquePointer) { self.decoder = decoder }
        deinit { ijpeg_decoder_destroy(decoder) }
    }
}
