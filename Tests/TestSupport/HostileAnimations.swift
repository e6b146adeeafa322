import Foundation

/// Small animations that are expensive to process: many frames on a large canvas, each frame a
/// tiny rectangle, so the file stays a few hundred bytes while every composited frame is the whole
/// canvas. Written byte by byte, so any test target can make them without a coder.
public enum HostileAnimations {
    /// A GIF89a of `frames` frames, each a `rect`×`rect` square of one colour (black and white in
    /// turn) drawn next to the last on a `width`×`height` logical screen, 100 ms each, looping
    /// forever.
    public static func gif(frames: Int, width: Int, height: Int, rect: Int = 1) -> Data {
        var bytes = Array("GIF89a".utf8)
        bytes += le16(width) + le16(height) + [0x80, 0, 0]  // 2-entry global colour table
        bytes += [0, 0, 0, 255, 255, 255]
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        let columns = max(1, width / rect), rows = max(1, height / rect)
        for frame in 0..<frames {
            // Square after square along the rows, so no frame repeats the one before.
            let x = frame % columns * rect, y = frame / columns % rows * rect
            bytes += [0x21, 0xF9, 4, 0x04, 10, 0, 0, 0]  // do not dispose, 10 cs
            bytes += [0x2C] + le16(x) + le16(y) + le16(rect) + le16(rect) + [0]
            bytes += lzwSquare(pixels: rect * rect, colour: UInt8(frame % 2))
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    /// An animated WebP of `frames` frames, each one opaque 1×1 lossless pixel (red and black in
    /// turn) at a different place on a `width`×`height` canvas, 100 ms each, looping forever.
    public static func webp(frames: Int, width: Int, height: Int) -> Data {
        animatedWebP(
            width: width, height: height, hasAlpha: true,
            frames: (0..<frames).map { frame in
                let x = (frame * 14) % max(2, width - 2) / 2, y = (frame * 26) % max(2, height - 2) / 2
                return le24(x) + le24(y) + le24(0) + le24(0) + le24(100) + [0]
                    + chunk("VP8L", losslessFlat(width: 1, height: 1, red: frame % 2 == 0 ? 255 : 0, alpha: 255))
            })
    }

    /// An animated WebP of `frames` opaque frames covering the whole `width`×`height` canvas, each
    /// one flat colour (a few bytes of lossless bitstream however large), 100 ms each.
    public static func webpFullFrames(frames: Int, width: Int, height: Int) -> Data {
        animatedWebP(
            width: width, height: height, hasAlpha: false,
            frames: (0..<frames).map { frame in
                le24(0) + le24(0) + le24(width - 1) + le24(height - 1) + le24(100) + [0]
                    + chunk("VP8L", losslessFlat(width: width, height: height, red: UInt8(frame * 37 % 256), alpha: 255))
            })
    }

    /// RIFF/WEBP with VP8X and ANIM (loop forever) around ANMF payloads.
    private static func animatedWebP(width: Int, height: Int, hasAlpha: Bool, frames: [[UInt8]]) -> Data {
        var body = Array("WEBP".utf8)
        body += chunk("VP8X", [hasAlpha ? 0x12 : 0x02, 0, 0, 0] + le24(width - 1) + le24(height - 1))
        body += chunk("ANIM", [0, 0, 0, 0, 0, 0])
        for frame in frames { body += chunk("ANMF", frame) }
        return Data(Array("RIFF".utf8) + le32(body.count) + body)
    }

    /// LZW data (minimum code size 2) for `pixels` pixels of index `colour`: a clear code before
    /// every pixel keeps the codes 3 bits wide, so no dictionary state needs tracking.
    private static func lzwSquare(pixels: Int, colour: UInt8) -> [UInt8] {
        var writer = BitWriter()
        for _ in 0..<pixels {
            writer.put(4, bits: 3)
            writer.put(UInt32(colour), bits: 3)
        }
        writer.put(5, bits: 3)
        let data = writer.finished
        var out: [UInt8] = [2]
        for start in stride(from: 0, to: data.count, by: 255) {
            let block = data[start..<min(start + 255, data.count)]
            out.append(UInt8(block.count))
            out += block
        }
        out.append(0)
        return out
    }

    /// A VP8L bitstream of one colour: no transforms, no colour cache, and five prefix codes of a
    /// single symbol each, so the pixels themselves take no bits.
    private static func losslessFlat(width: Int, height: Int, red: UInt8, alpha: UInt8) -> [UInt8] {
        var writer = BitWriter()
        writer.put(0x2F, bits: 8)  // signature
        writer.put(UInt32(width - 1), bits: 14)
        writer.put(UInt32(height - 1), bits: 14)
        writer.put(alpha < 255 ? 1 : 0, bits: 1)  // alpha used
        writer.put(0, bits: 3)  // version
        writer.put(0, bits: 3)  // no transform, no colour cache, no meta codes
        for value in [0, red, 0, alpha] {  // green, red, blue, alpha
            writer.put(1, bits: 1)  // simple code
            writer.put(0, bits: 1)  // one symbol
            writer.put(1, bits: 1)  // 8-bit symbol
            writer.put(UInt32(value), bits: 8)
        }
        writer.put(0b001, bits: 3)  // distance: simple code, one 1-bit symbol…
        writer.put(0, bits: 1)  // …0
        return writer.finished
    }

    private static func chunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
        Array(tag.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func le24(_ value: Int) -> [UInt8] { le16(value) + [UInt8(value >> 16 & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] { le24(value) + [UInt8(value >> 24 & 0xFF)] }
}

/// Bits packed least significant first, as GIF's LZW and WebP's VP8L both read them.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var pending: UInt32 = 0
    private var count = 0

    mutating func put(_ value: UInt32, bits: Int) {
        pending |= value << count
        count += bits
        while count >= 8 {
            bytes.append(UInt8(pending & 0xFF))
            pending >>= 8
            count -= 8
        }
    }

    /// The bytes with the last partial byte included.
    var finished: [UInt8] { count > 0 ? bytes + [UInt8(pending & 0xFF)] : bytes }
}
