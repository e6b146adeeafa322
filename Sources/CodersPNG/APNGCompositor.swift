import Foundation
import PipelineCore

/// Draws APNG frames onto the core's RGBA `AnimationCanvas` (straight alpha, as PNG stores it),
/// which applies their disposal and keeps what a frame disposed to "previous" restores.
///
/// Random access starts over at the nearest key frame at or before the one asked for: a frame
/// drawn on a canvas that nothing before it shows through (see `APNGFrames.keyFrames`).
struct APNGCompositor: Sendable {
    let decoder: APNGFrameDecoder
    let keyFrames: [Int]
    /// Made on the first frame composited: frames that replace the whole canvas never need it.
    private var canvas: AnimationCanvas?

    init(decoder: APNGFrameDecoder) {
        self.decoder = decoder
        keyFrames = APNGFrames.keyFrames(decoder.index)
    }

    /// The canvas (RGBA) showing frame `frame`. `checkpoint` is polled before each frame drawn.
    mutating func render(frame: Int, checkpoint: DecodeCheckpoint) throws -> [UInt8] {
        if canvas == nil { canvas = try AnimationCanvas(size: decoder.index.canvas, format: .rgba8) }
        let (decoder, index) = (decoder, decoder.index)
        return try canvas!.render(
            frame, key: keyFrames[frame], checkpoint: checkpoint,
            area: { frame in
                let control = index.frames[frame].control
                return ImageRect(x: control.x, y: control.y, width: control.width, height: control.height)
            },
            disposal: { frame in
                switch APNGFrames.dispose(of: frame, in: index) {
                case .background: .background
                case .previous: .previous
                case .none: .none
                }
            },
            draw: { frame, pixels in
                let frameCanvas = try decoder.pixels(of: frame, checkpoint: checkpoint)
                Self.draw(frameCanvas, at: index.frames[frame].control, into: &pixels, width: index.canvas.width)
            })
    }

    /// Draws a frame's pixels into its rectangle: replacing what is there (blend source, or a frame
    /// without alpha) or composited over it.
    private static func draw(_ pixels: PixelBuffer, at control: APNGFrameControl, into canvas: inout [UInt8], width: Int) {
        let replaces = control.blend == .source || !pixels.format.hasAlpha
        var row = [UInt8](repeating: 0, count: control.width * 4)
        pixels.bytes.withUnsafeBufferPointer { source in
            row.withUnsafeMutableBufferPointer { row in
                canvas.withUnsafeMutableBufferPointer { canvas in
                    let sourceRowBytes = control.width * pixels.format.bytesPerPixel
                    for y in 0..<control.height {
                        let out = canvas.baseAddress! + ((control.y + y) * width + control.x) * 4
                        let input = source.baseAddress! + y * sourceRowBytes
                        if pixels.format == .rgba8 {
                            if replaces {
                                out.update(from: input, count: control.width * 4)
                            } else {
                                Self.blendOver(input, onto: out, count: control.width)
                            }
                            continue
                        }
                        Self.expand(input, format: pixels.format, into: row.baseAddress!, count: control.width)
                        if replaces {
                            out.update(from: row.baseAddress!, count: control.width * 4)
                        } else {
                            Self.blendOver(row.baseAddress!, onto: out, count: control.width)
                        }
                    }
                }
            }
        }
    }

    /// One row of gray, gray+alpha or RGB pixels as RGBA.
    static func expand(_ input: UnsafePointer<UInt8>, format: PixelFormat, into out: UnsafeMutablePointer<UInt8>, count: Int) {
        switch format {
        case .gray8:
            for x in 0..<count {
                let v = input[x]
                out[x * 4] = v
                out[x * 4 + 1] = v
                out[x * 4 + 2] = v
                out[x * 4 + 3] = 255
            }
        case .grayAlpha8:
            for x in 0..<count {
                let v = input[x * 2]
                out[x * 4] = v
                out[x * 4 + 1] = v
                out[x * 4 + 2] = v
                out[x * 4 + 3] = input[x * 2 + 1]
            }
        case .rgb8:
            for x in 0..<count {
                out[x * 4] = input[x * 3]
                out[x * 4 + 1] = input[x * 3 + 1]
                out[x * 4 + 2] = input[x * 3 + 2]
                out[x * 4 + 3] = 255
            }
        default:
            out.update(from: input, count: count * 4)
        }
    }

    /// APNG's "over": straight-alpha source-over, rounded to nearest. An opaque source pixel
    /// replaces, a transparent one leaves the canvas; otherwise out alpha = sa + da(1 - sa) and
    /// each channel = (c_s sa + c_d da (1 - sa)) / out alpha.
    static func blendOver(_ input: UnsafePointer<UInt8>, onto out: UnsafeMutablePointer<UInt8>, count: Int) {
        for x in 0..<count {
            let s = input + x * 4, d = out + x * 4
            let sa = UInt32(s[3])
            if sa == 255 {
                d[0] = s[0]
                d[1] = s[1]
                d[2] = s[2]
                d[3] = 255
                continue
            }
            if sa == 0 { continue }
            let da = UInt32(d[3])
            if da == 0 {
                d[0] = s[0]
                d[1] = s[1]
                d[2] = s[2]
                d[3] = s[3]
                continue
            }
            let sourceWeight = sa * 255, destinationWeight = da * (255 - sa)
            let total = sourceWeight + destinationWeight
            for channel in 0..<3 {
                d[channel] = UInt8((UInt32(s[channel]) * sourceWeight + UInt32(d[channel]) * destinationWeight + total / 2) / total)
            }
            d[3] = UInt8((total + 127) / 255)
        }
    }
}

/// Facts about an index's frames the compositor and the provider share.
enum APNGFrames {
    /// A frame's disposal as played: frame 0's "previous" means "background" (there is nothing
    /// before it to go back to).
    static func dispose(of frame: Int, in index: APNGIndex) -> APNGFrameControl.Dispose {
        let dispose = index.frames[frame].control.dispose
        return frame == 0 && dispose == .previous ? .background : dispose
    }

    /// The frame's pixels are the whole canvas whatever was there before: it covers the canvas and
    /// replaces it (blend source, or no transparency in the file).
    static func isIndependent(_ frame: Int, in index: APNGIndex) -> Bool {
        let control = index.frames[frame].control
        return control.covers(index.canvas) && (control.blend == .source || !index.hasTransparency)
    }

    /// For each frame, the frame to start drawing from on a clear canvas to show it: the latest
    /// one at or before it that nothing earlier shows through. That is frame 0, an independent
    /// frame (unless it is disposed to "previous": what it restores comes from before it), and a
    /// frame after one that covered the canvas and was cleared to background.
    static func keyFrames(_ index: APNGIndex) -> [Int] {
        var keys: [Int] = []
        keys.reserveCapacity(index.frames.count)
        for frame in index.frames.indices {
            let isKey =
                frame == 0
                || (isIndependent(frame, in: index) && dispose(of: frame, in: index) != .previous)
                || (index.frames[frame - 1].control.covers(index.canvas) && dispose(of: frame - 1, in: index) == .background)
            keys.append(isKey ? frame : keys[frame - 1])
        }
        return keys
    }
}
