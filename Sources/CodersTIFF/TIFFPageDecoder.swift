import CTIFF
import CTIFFShim
import Foundation
import PipelineCore

/// Decodes the selected directory of an open TIFF at the target size: stripped pages row by row,
/// tiled and separate-plane pages a row of tiles (or a strip) at a time, each row converted and
/// handed to a `TIFFRowSink`. Layouts that are not native go through libtiff's RGBA helper, a
/// band of rows at a time.
enum TIFFPageDecoder {
    static func decode(
        _ file: TIFFFile, layout: TIFFPageLayout, target: ImageSize, cmyk: (any CMYKRowConverter)?, options: ImageDecodeOptions,
        checkpoint: DecodeCheckpoint
    ) throws -> PixelBuffer {
        let denominator = TIFFJPEGScaledDecoder.scaleDenominator(layout, target: target)
        if denominator > 1 {
            do {
                return try TIFFJPEGScaledDecoder.decode(file, layout: layout, denominator: denominator, target: target, options: options, checkpoint: checkpoint)
            } catch is TIFFJPEGScaledDecoder.Unsuitable {
                // libtiff reads the page instead, and says what is wrong with it if anything is.
            }
        }
        return try TIFFRowSink.collect(size: layout.size, format: layout.outputFormat, target: target) { sink in
            if !layout.isNative {
                try readThroughRGBAHelper(file, layout: layout, into: &sink, options: options, checkpoint: checkpoint)
            } else {
                let colormap = layout.model == .palette ? TIFFColormap(file, bits: layout.bitsPerSample) : nil
                let converter = try TIFFRowConverter(layout: layout, colormap: colormap, cmyk: cmyk)
                if !layout.isTiled && !layout.isPlanar {
                    try readScanlines(file, layout: layout, converter: converter, into: &sink, checkpoint: checkpoint)
                } else {
                    try readBands(file, layout: layout, converter: converter, into: &sink, options: options, checkpoint: checkpoint)
                }
            }
        }
    }

    /// Bytes the reader holds at once: a band of interleaved samples and one plane's strip or tile
    /// (whose width a hostile header may make far wider than the image), or the RGBA helper's band.
    /// What `TIFFPageReader` checks against `maxDecoderMemory` before reading.
    static func bandBytes(_ layout: TIFFPageLayout) -> Int {
        let rows = layout.isTiled || layout.isPlanar || !layout.isNative ? layout.blockSize.height : 1
        let perRow = layout.isNative ? layout.rowBytes(samples: layout.samplesPerPixel) : layout.size.width * 4
        let blockSamples = layout.isPlanar ? 1 : layout.samplesPerPixel
        let (blockBits, bitsOverflow) = layout.blockSize.width.multipliedReportingOverflow(by: layout.bitsPerSample * blockSamples)
        let (band, bandOverflow) = perRow.multipliedReportingOverflow(by: rows)
        let (block, blockOverflow) = ((blockBits + 7) / 8).multipliedReportingOverflow(by: layout.blockSize.height)
        guard !bitsOverflow, !bandOverflow, !blockOverflow, band <= Int.max / 2 - block else { return .max }
        return band + block
    }

    /// Contiguous strips, one row per call: libtiff decodes a strip's rows in order as they are asked for.
    private static func readScanlines(
        _ file: TIFFFile, layout: TIFFPageLayout, converter: TIFFRowConverter, into sink: inout TIFFRowSink, checkpoint: DecodeCheckpoint
    ) throws {
        let scanline = Int(TIFFScanlineSize64(file.handle))
        guard scanline >= layout.rowBytes(samples: layout.samplesPerPixel) else {
            throw ImagePipeError.badImageData(reason: "TIFF: scanline of \(scanline) bytes is too short for its samples")
        }
        let rowBytes = layout.rowBytes(samples: layout.samplesPerPixel)
        let direct = converter.isIdentity && scanline == rowBytes
        if direct, sink.holdsFullImage, layout.blockSize.height * rowBytes <= wholeStripBytes {
            return try readWholeStrips(file, layout: layout, rowBytes: rowBytes, into: &sink, checkpoint: checkpoint)
        }
        var raw = [UInt8](repeating: 0, count: scanline)
        for y in 0..<layout.size.height {
            if y & 15 == 0 { try checkpoint.check() }
            if direct {
                // The stored row is the output row: libtiff decodes straight into it.
                try sink.addRow { row in
                    guard TIFFReadScanline(file.handle, row, UInt32(y), 0) == 1 else { throw file.failure("reading row \(y)") }
                }
                continue
            }
            try raw.withUnsafeMutableBytes { buffer in
                guard TIFFReadScanline(file.handle, buffer.baseAddress, UInt32(y), 0) == 1 else { throw file.failure("reading row \(y)") }
                sink.addRow { converter.convert(buffer.baseAddress!, into: $0) }
            }
        }
    }

    /// Strips at most this large are decoded whole, straight into their rows of the image; larger
    /// ones row by row, so a decode can stop within one.
    static let wholeStripBytes = 16 << 20

    /// Contiguous strips whose stored rows are the output rows, each decoded by one call straight
    /// into its place in the full image, as libtiff's own reader does: no call per row.
    private static func readWholeStrips(
        _ file: TIFFFile, layout: TIFFPageLayout, rowBytes: Int, into sink: inout TIFFRowSink, checkpoint: DecodeCheckpoint
    ) throws {
        let height = layout.size.height, rowsPerStrip = layout.blockSize.height
        for (strip, y0) in stride(from: 0, to: height, by: rowsPerStrip).enumerated() {
            try checkpoint.check()
            let rows = min(rowsPerStrip, height - y0)
            try sink.addRows(rows) { target in
                let count = Int(TIFFReadEncodedStrip(file.handle, UInt32(strip), target, tmsize_t(rows * rowBytes)))
                guard count >= 0 else { throw file.failure("reading strip \(strip)") }
                guard count == rows * rowBytes else {
                    throw ImagePipeError.badImageData(reason: "TIFF: strip \(strip) decoded to \(count) bytes, too few for its \(rows) rows")
                }
            }
        }
    }

    /// Tiles or separate planes: each band of `blockSize.height` rows is assembled from its tiles
    /// (or each plane's strip) into interleaved samples, then converted row by row.
    private static func readBands(
        _ file: TIFFFile, layout: TIFFPageLayout, converter: TIFFRowConverter, into sink: inout TIFFRowSink,
        options: ImageDecodeOptions, checkpoint: DecodeCheckpoint
    ) throws {
        let tiff = file.handle
        let width = layout.size.width, height = layout.size.height
        let planes = layout.isPlanar ? layout.samplesPerPixel : 1
        let samplesPerBlockPixel = layout.isPlanar ? 1 : layout.samplesPerPixel
        let bitsPerPixel = layout.bitsPerSample * layout.samplesPerPixel
        let bytesPerSample = layout.bitsPerSample / 8
        let block = layout.blockSize
        let bandRowBytes = layout.rowBytes(samples: layout.samplesPerPixel)
        let blockRowBytes = (block.width * layout.bitsPerSample * samplesPerBlockPixel + 7) / 8
        let (blockBytes, overflow) = blockRowBytes.multipliedReportingOverflow(by: block.height)
        guard !overflow else { throw ImagePipeError.badImageData(reason: "TIFF: \(block) blocks overflow") }
        try options.checkDecoderMemory(bandBytes(layout))
        // 8-bit samples the output keeps as they are, into the full image: each tile's rows go
        // straight to their place in the image, instead of through the band and a row copy.
        let direct = converter.isIdentity && planes == 1 && sink.holdsFullImage
        // Horizontal differencing undone here as each tile row is copied into place, not by
        // libtiff in the tile first: one pass over the tile instead of two.
        let accumulates = direct && layout.isTiled && ip_tiff_take_horizontal_predictor(tiff) == 1
        var band = [UInt8](repeating: 0, count: direct ? 0 : bandRowBytes * block.height)
        var piece = [UInt8](repeating: 0, count: blockBytes)
        let stripsPerPlane = (height + block.height - 1) / block.height
        /// Reads the band of rows from `y0` into `target` (rows `bandRowBytes` apart), interleaved.
        func readBand(_ y0: Int, rows: Int, into target: UnsafeMutableRawPointer) throws {
            for x0 in stride(from: 0, to: width, by: block.width) {
                try checkpoint.check()
                let columns = min(block.width, width - x0)
                for plane in 0..<planes {
                    let read = piece.withUnsafeMutableBytes { buffer -> Int in
                        let count: tmsize_t
                        if layout.isTiled {
                            let tile = TIFFComputeTile(tiff, UInt32(x0), UInt32(y0), 0, UInt16(plane))
                            count = TIFFReadEncodedTile(tiff, tile, buffer.baseAddress, tmsize_t(blockBytes))
                        } else {
                            let strip = UInt32(plane * stripsPerPlane + y0 / block.height)
                            count = TIFFReadEncodedStrip(tiff, strip, buffer.baseAddress, tmsize_t(rows * blockRowBytes))
                        }
                        return Int(count)
                    }
                    guard read >= 0 else { throw file.failure(layout.isTiled ? "reading a tile" : "reading a strip") }
                    guard read >= (rows - 1) * blockRowBytes + (columns * layout.bitsPerSample * samplesPerBlockPixel + 7) / 8 else {
                        throw ImagePipeError.badImageData(reason: "TIFF: a \(layout.isTiled ? "tile" : "strip") decoded to \(read) bytes, too few for its rows")
                    }
                    piece.withUnsafeBytes { source in
                        for r in 0..<rows {
                            let from = source.baseAddress! + r * blockRowBytes
                            let rowStart = target + r * bandRowBytes
                            if planes == 1 {
                                // Tiles start on a whole byte: their width is a multiple of 16 pixels.
                                let offset = x0 * bitsPerPixel / 8
                                let count = min((columns * bitsPerPixel + 7) / 8, bandRowBytes - offset)
                                if accumulates {
                                    TIFFHorizontalPredictor.undo(from, into: rowStart + offset, count: count, samplesPerPixel: layout.samplesPerPixel)
                                } else {
                                    (rowStart + offset).copyMemory(from: from, byteCount: count)
                                }
                            } else {
                                // One plane's samples into every `samplesPerPixel`-th slot.
                                let stride = layout.samplesPerPixel * bytesPerSample
                                var to = rowStart + x0 * stride + plane * bytesPerSample
                                var sample = from
                                for _ in 0..<columns {
                                    to.copyMemory(from: sample, byteCount: bytesPerSample)
                                    to += stride
                                    sample += bytesPerSample
                                }
                            }
                        }
                    }
                }
            }
        }
        for y0 in stride(from: 0, to: height, by: block.height) {
            let rows = min(block.height, height - y0)
            if direct {
                try sink.addRows(rows) { try readBand(y0, rows: rows, into: $0) }
                continue
            }
            try band.withUnsafeMutableBytes { try readBand(y0, rows: rows, into: $0.baseAddress!) }
            band.withUnsafeBytes { buffer in
                for r in 0..<rows {
                    let row = buffer.baseAddress! + r * bandRowBytes
                    if converter.isIdentity {
                        sink.addRow(copying: row.assumingMemoryBound(to: UInt8.self))
                    } else {
                        sink.addRow { converter.convert(row, into: $0) }
                    }
                }
            }
        }
    }

    /// libtiff's RGBA helper, a block's rows at a time, asked to keep the stored orientation
    /// (the image carries the tag instead); its premultiplied alpha is made straight again.
    private static func readThroughRGBAHelper(
        _ file: TIFFFile, layout: TIFFPageLayout, into sink: inout TIFFRowSink, options: ImageDecodeOptions, checkpoint: DecodeCheckpoint
    ) throws {
        try options.checkDecoderMemory(bandBytes(layout))
        var image = TIFFRGBAImage()
        var message = [CChar](repeating: 0, count: 1024)
        guard TIFFRGBAImageBegin(&image, file.handle, 1, &message) == 1 else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImagePipeError.unsupportedFormat(.tiff, reason: "TIFF: \(reason)")
        }
        defer { TIFFRGBAImageEnd(&image) }
        image.req_orientation = image.orientation
        let width = layout.size.width, height = layout.size.height
        let bandRows = max(1, layout.blockSize.height)
        var raster = [UInt32](repeating: 0, count: width * bandRows)
        let format = layout.outputFormat
        for y0 in stride(from: 0, to: height, by: bandRows) {
            try checkpoint.check()
            let rows = min(bandRows, height - y0)
            image.row_offset = Int32(y0)
            image.col_offset = 0
            let ok = raster.withUnsafeMutableBufferPointer { TIFFRGBAImageGet(&image, $0.baseAddress, UInt32(width), UInt32(rows)) }
            guard ok == 1 else { throw file.failure("reading rows \(y0)-\(y0 + rows - 1)") }
            raster.withUnsafeBufferPointer { pixels in
                for r in 0..<rows {
                    sink.addRow { out in
                        for x in 0..<width {
                            let v = pixels[r * width + x]
                            let red = UInt8(v & 0xFF), green = UInt8(v >> 8 & 0xFF), blue = UInt8(v >> 16 & 0xFF), alpha = UInt8(v >> 24)
                            switch format {
                            case .gray8: out[x] = red
                            case .grayAlpha8:
                                out[2 * x] = TIFFRowConverter.unpremultiply(red, alpha)
                                out[2 * x + 1] = alpha
                            case .rgb8:
                                out[3 * x] = red
                                out[3 * x + 1] = green
                                out[3 * x + 2] = blue
                            case .rgba8:
                                out[4 * x] = TIFFRowConverter.unpremultiply(red, alpha)
                                out[4 * x + 1] = TIFFRowConverter.unpremultiply(green, alpha)
                                out[4 * x + 2] = TIFFRowConverter.unpremultiply(blue, alpha)
                                out[4 * x + 3] = alpha
                            }
                        }
                    }
                }
            }
        }
    }
}
