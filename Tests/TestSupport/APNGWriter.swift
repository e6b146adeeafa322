import CZlib
import Foundation

/// A small APNG writer independent of CodersPNG (zlib and hand-framed chunks), so tests can make
/// animations with every dispose/blend combination and then break them chunk by chunk.
public enum APNGWriter {
    /// One frame: `pixels` are `width`×`height` pixels of the file's channel count, placed at
    /// `x`,`y` on the canvas. `dispose`: 0 none, 1 background, 2 previous; `blend`: 0 source, 1 over.
    public struct Frame: Sendable {
        public var pixels: [UInt8]
        public var width: Int, height: Int, x: Int, y: Int
        public var delayNumerator: UInt16, delayDenominator: UInt16
        public var dispose: UInt8, blend: UInt8

        public init(
            pixels: [UInt8], width: Int, height: Int, x: Int = 0, y: Int = 0,
            delay: (UInt16, UInt16) = (1, 10), dispose: UInt8 = 0, blend: UInt8 = 0
        ) {
            self.pixels = pixels
            (self.width, self.height, self.x, self.y) = (width, height, x, y)
            (delayNumerator, delayDenominator) = delay
            (self.dispose, self.blend) = (dispose, blend)
        }

        /// A frame of one colour.
        public static func filled(
            _ color: [UInt8], width: Int, height: Int, x: Int = 0, y: Int = 0,
            delay: (UInt16, UInt16) = (1, 10), dispose: UInt8 = 0, blend: UInt8 = 0
        ) -> Frame {
            Frame(
                pixels: Array([[UInt8]](repeating: color, count: width * height).joined()), width: width, height: height,
                x: x, y: y, delay: delay, dispose: dispose, blend: blend)
        }
    }

    public struct Chunk: Sendable {
        public var type: String
        public var payload: [UInt8]
        public init(_ type: String, _ payload: [UInt8]) { (self.type, self.payload) = (type, payload) }
    }

    /// The chunks of an APNG: IHDR, acTL, then for each frame fcTL and its data (frame 0 as IDAT,
    /// unless `defaultImage` gives a separate still image, which then is not part of the
    /// animation), IEND. `channels` 3 (RGB) or 4 (RGBA). Sequence numbers run 0, 1, 2, … in order.
    public static func chunks(
        width: Int, height: Int, channels: Int = 4, frames: [Frame], loops: UInt32 = 0,
        defaultImage: [UInt8]? = nil, announcedFrames: UInt32? = nil
    ) -> [Chunk] {
        var chunks = [Chunk("IHDR", be32(width) + be32(height) + [8, channels == 4 ? 6 : 2, 0, 0, 0])]
        chunks.append(Chunk("acTL", be32(Int(announcedFrames ?? UInt32(frames.count))) + be32(Int(loops))))
        var sequence = 0
        if let defaultImage {
            chunks.append(Chunk("IDAT", compressed(defaultImage, width: width, height: height, channels: channels)))
        }
        for (index, frame) in frames.enumerated() {
            chunks.append(
                Chunk(
                    "fcTL",
                    be32(sequence) + be32(frame.width) + be32(frame.height) + be32(frame.x) + be32(frame.y)
                        + be16(frame.delayNumerator) + be16(frame.delayDenominator) + [frame.dispose, frame.blend]))
            sequence += 1
            let data = compressed(frame.pixels, width: frame.width, height: frame.height, channels: channels)
            if index == 0 && defaultImage == nil {
                chunks.append(Chunk("IDAT", data))
            } else {
                chunks.append(Chunk("fdAT", be32(sequence) + data))
                sequence += 1
            }
        }
        chunks.append(Chunk("IEND", []))
        return chunks
    }

    /// The file: signature and each chunk framed with its CRC.
    public static func file(_ chunks: [Chunk]) -> Data {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for chunk in chunks {
            let typed = Array(chunk.type.utf8) + chunk.payload
            let crc = typed.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            out += be32(chunk.payload.count) + typed + be32(Int(crc))
        }
        return Data(out)
    }

    public static func file(
        width: Int, height: Int, channels: Int = 4, frames: [Frame], loops: UInt32 = 0,
        defaultImage: [UInt8]? = nil
    ) -> Data {
        file(chunks(width: width, height: height, channels: channels, frames: frames, loops: loops, defaultImage: defaultImage))
    }

    /// A valid APNG that is cheap to send and expensive to play: a `width`×`height` 1-bit gray
    /// canvas (all black, so its image data deflates to about 1/1000), then `frames` - 1 frames of
    /// one white pixel each, 100 ms each, looping forever.
    public static func hostile(frames: Int, width: Int, height: Int) -> Data {
        let rowBytes = (width + 7) / 8
        var chunks = [Chunk("IHDR", be32(width) + be32(height) + [1, 0, 0, 0, 0]), Chunk("acTL", be32(frames) + be32(0))]
        let control = { (sequence: Int, w: Int, h: Int, x: Int, y: Int) in
            be32(sequence) + be32(w) + be32(h) + be32(x) + be32(y) + [0, 1, 0, 10, 0, 0]
        }
        chunks.append(Chunk("fcTL", control(0, width, height, 0, 0)))
        chunks.append(Chunk("IDAT", compressed([UInt8](repeating: 0, count: rowBytes * height), width: rowBytes, height: height, channels: 1)))
        var sequence = 1
        for frame in 1..<max(frames, 1) {
            chunks.append(Chunk("fcTL", control(sequence, 1, 1, frame % width, frame / width % height)))
            chunks.append(Chunk("fdAT", be32(sequence + 1) + compressed([0x80], width: 1, height: 1, channels: 1)))
            sequence += 2
        }
        chunks.append(Chunk("IEND", []))
        return file(chunks)
    }

    /// Rows filtered with `filters` (row y gets `filters[y % count]`; 0 none, 1 sub, 2 up,
    /// 3 average, 4 Paeth, as the PNG specification defines them), deflated by zlib.
    public static func compressed(_ pixels: [UInt8], width: Int, height: Int, channels: Int, filters: [UInt8] = [0]) -> [UInt8] {
        let rowBytes = width * channels
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (rowBytes + 1))
        for y in 0..<height {
            let filter = filters[y % filters.count]
            raw.append(filter)
            if filter == 0 {
                raw += pixels[y * rowBytes..<(y + 1) * rowBytes]
                continue
            }
            for i in 0..<rowBytes {
                let x = Int(pixels[y * rowBytes + i])
                let a = i >= channels ? Int(pixels[y * rowBytes + i - channels]) : 0
                let b = y > 0 ? Int(pixels[(y - 1) * rowBytes + i]) : 0
                let c = y > 0 && i >= channels ? Int(pixels[(y - 1) * rowBytes + i - channels]) : 0
                let predictor: Int
                switch filter {
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: predictor = 0
                }
                raw.append(UInt8(truncatingIfNeeded: x - predictor))
            }
        }
        var length = compressBound(uLong(raw.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = out.withUnsafeMutableBufferPointer { out in
            raw.withUnsafeBufferPointer { compress(out.baseAddress, &length, $0.baseAddress, uLong($0.count)) }
        }
        precondition(status == Z_OK)
        return Array(out.prefix(Int(length)))
    }

    public static func be32(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}
