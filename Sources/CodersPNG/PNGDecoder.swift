import Foundation
import PipelineCore

/// One-shot PNG decoding: the full image, or a thumbnail shrunk while the rows stream past.
enum PNGDecoder {
    /// Rows read per libpng call when shrinking: enough to amortise the call, few enough to stay small.
    static let stripRows = 16

    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        if let header = PNGHeader(data) {
            try options.checkPixelLimit(header.size)
        }
        var orientation = ImageOrientation.up
        let buffer = try data.withUnsafeBytes { bytes -> PixelBuffer in
            let reader = try PNGReader(bytes)
            let layout = try reader.readHeader()
            orientation = reader.exifOrientation ?? .up
            try options.checkPixelLimit(layout.size)
            let target = options.targetSize(for: layout.size)
            let factors = PNGRowShrinker.factors(from: layout.size, to: target)
            var pixels: PixelBuffer
            // Adam7 spreads every row over seven passes, so rows cannot be shrunk as they arrive;
            // interlaced thumbnails decode in full first.
            if target != layout.size, !layout.isInterlaced, factors.x > 1 || factors.y > 1 {
                pixels = try readShrinking(reader, layout: layout, factorX: factors.x, factorY: factors.y)
            } else {
                pixels = try readFull(reader, layout: layout)
            }
            try reader.finish()
            if pixels.size != target { pixels = pixels.resampled(to: target) }
            return pixels
        }
        return Image(buffer, format: .png, orientation: orientation, scale: options.scaleFactor,
                     metadata: ImageMetadata(decodeOptions: options))
    }

    private static func readFull(_ reader: PNGReader, layout: PNGLayout) throws -> PixelBuffer {
        let byteCount = try PixelBuffer.byteCount(width: layout.size.width, height: layout.size.height, format: layout.format)
        let bytes = try [UInt8](unsafeUninitializedCapacity: byteCount) { storage, initialized in
            guard let base = storage.baseAddress else { return }
            var rows = (0..<layout.size.height).map { Optional(base + $0 * layout.bytesPerRow) }
            try rows.withUnsafeMutableBufferPointer { rows in
                // libpng writes every byte of every row or fails; on failure the bytes are dropped.
                try reader.readImage(into: rows.baseAddress!)
            }
            initialized = byteCount
        }
        return try PixelBuffer(width: layout.size.width, height: layout.size.height, format: layout.format, bytes: bytes)
    }

    private static func readShrinking(_ reader: PNGReader, layout: PNGLayout, factorX: Int, factorY: Int) throws -> PixelBuffer {
        var shrinker = try PNGRowShrinker(source: layout.size, format: layout.format, factorX: factorX, factorY: factorY)
        let strip = UnsafeMutablePointer<UInt8>.allocate(capacity: layout.bytesPerRow * stripRows)
        defer { strip.deallocate() }
        var rows = (0..<stripRows).map { Optional(strip + $0 * layout.bytesPerRow) }
        var remaining = layout.size.height
        while remaining > 0 {
            let count = min(remaining, stripRows)
            try rows.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, count: count) }
            for row in 0..<count { shrinker.add(row: strip + row * layout.bytesPerRow) }
            remaining -= count
        }
        return try shrinker.finish()
    }
}
