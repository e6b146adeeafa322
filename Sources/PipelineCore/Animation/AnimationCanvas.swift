/// The canvas of an animation whose frames are drawn over one another and then disposed of, as in
/// GIF and APNG, for coders that composite frames on request. It replays frames from a key frame
/// (one that nothing before it shows through) and keeps just enough state to continue from the
/// last frame drawn: the pixels, and for a frame disposed to "previous" the rectangle it covers as
/// it was before the frame was drawn. Pixels start transparent black, rows of `size.width`.
package struct AnimationCanvas: Sendable {
    /// What happens to a frame's rectangle before the next frame is drawn.
    package enum Disposal: Sendable, Hashable {
        /// Left as drawn.
        case none
        /// Cleared to transparent black (browsers and SDWebImage ignore GIF's background colour).
        case background
        /// Put back as it was before the frame was drawn.
        case previous
    }

    let size: ImageSize
    let format: PixelFormat
    private(set) var pixels: [UInt8]
    private var saved: Saved?
    /// The frame the pixels show (its disposal not yet applied), or nil when unknown.
    private var lastDrawn: Int?
    /// Nothing drawn since the pixels were zeroed: a restart need not zero them again.
    private var isClear = true

    private struct Saved: Sendable {
        var area: ImageRect
        var pixels: [UInt8]
    }

    /// Throws `limitExceeded(.pixels)` when the canvas could not be addressed.
    package init(size: ImageSize, format: PixelFormat) throws {
        self.size = size
        self.format = format
        pixels = [UInt8](repeating: 0, count: try PixelBuffer.byteCount(width: size.width, height: size.height, format: format))
    }

    /// The pixels showing frame `target`. Continues from the last frame drawn when that is at or
    /// after `key` (the frame to start from on a clear canvas), else starts over at `key`.
    /// `area` is the part of the canvas a frame covers (nil: none), `disposal` what becomes of it,
    /// and `draw` paints a frame into the pixels; `checkpoint` is polled before each frame drawn.
    package mutating func render(
        _ target: Int, key: Int, checkpoint: DecodeCheckpoint,
        area: (Int) -> ImageRect?, disposal: (Int) -> Disposal,
        draw: (Int, inout [UInt8]) throws -> Void
    ) throws -> [UInt8] {
        let first: Int
        if let drawn = lastDrawn, drawn <= target, drawn + 1 >= key {
            if drawn == target { return pixels }
            dispose(drawn, area: area(drawn), as: disposal(drawn))
            first = drawn + 1
        } else {
            if !isClear { pixels.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
            saved = nil
            first = key
        }
        lastDrawn = nil
        isClear = false
        for frame in first...target {
            try checkpoint.check()
            if frame > first { dispose(frame - 1, area: area(frame - 1), as: disposal(frame - 1)) }
            saved = disposal(frame) == .previous ? area(frame).map { Saved(area: $0, pixels: copy($0)) } : nil
            try draw(frame, &pixels)
        }
        lastDrawn = target
        return pixels
    }

    private mutating func dispose(_ frame: Int, area: ImageRect?, as disposal: Disposal) {
        switch disposal {
        case .background:
            guard let area else { break }
            let bytesPerPixel = format.bytesPerPixel, width = size.width
            pixels.withUnsafeMutableBufferPointer { pixels in
                for y in area.y..<area.y + area.height {
                    (pixels.baseAddress! + (y * width + area.x) * bytesPerPixel).update(repeating: 0, count: area.width * bytesPerPixel)
                }
            }
        case .previous:
            if let saved { restore(saved) }
        case .none:
            break
        }
        saved = nil
    }

    /// The pixels under `area`, row after row.
    private func copy(_ area: ImageRect) -> [UInt8] {
        let bytesPerPixel = format.bytesPerPixel, width = size.width, rowBytes = area.width * bytesPerPixel
        return [UInt8](unsafeUninitializedCapacity: rowBytes * area.height) { out, count in
            pixels.withUnsafeBufferPointer { pixels in
                for row in 0..<area.height {
                    (out.baseAddress! + row * rowBytes).initialize(from: pixels.baseAddress! + ((area.y + row) * width + area.x) * bytesPerPixel, count: rowBytes)
                }
            }
            count = rowBytes * area.height
        }
    }

    private mutating func restore(_ saved: Saved) {
        let area = saved.area, bytesPerPixel = format.bytesPerPixel, width = size.width, rowBytes = area.width * bytesPerPixel
        saved.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { pixels in
                for row in 0..<area.height {
                    (pixels.baseAddress! + ((area.y + row) * width + area.x) * bytesPerPixel).update(from: source.baseAddress! + row * rowBytes, count: rowBytes)
                }
            }
        }
    }
}
