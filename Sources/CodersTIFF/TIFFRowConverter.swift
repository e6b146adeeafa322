import Foundation
import PipelineCore

/// Turns one row of a native layout's samples (interleaved, as libtiff decodes them, 16-bit ones
/// in host order) into a row of the layout's 8-bit output format. A class so that its row buffers
/// are reused without copies; one decode uses it from one thread.
final class TIFFRowConverter {
    let layout: TIFFPageLayout
    let colormap: [UInt8]
    let cmyk: (any CMYKRowConverter)?
    private var samples: [UInt8]
    private var cmykRow: [UInt8]
    /// The stored samples are the output's bytes (8-bit RGB, RGBA with straight alpha, gray, gray
    /// with alpha): rows are copied as they are.
    let isIdentity: Bool

    init(layout: TIFFPageLayout, colormap: TIFFColormap?, cmyk: (any CMYKRowConverter)?) throws {
        self.layout = layout
        var map = colormap?.rgb ?? []
        if layout.model == .palette {
            guard !map.isEmpty else { throw ImagePipeError.badImageData(reason: "TIFF: palette image without a colour map") }
            map += [UInt8](repeating: 0, count: 256 * 3 - map.count)
        }
        self.colormap = map
        self.cmyk = cmyk
        samples = [UInt8](repeating: 0, count: layout.size.width * layout.samplesPerPixel)
        cmykRow = layout.model == .cmyk && cmyk != nil ? [UInt8](repeating: 0, count: layout.size.width * 4) : []
        isIdentity =
            layout.bitsPerSample == 8 && layout.alpha != .associated && layout.samplesPerPixel == layout.outputFormat.channelCount
            && (layout.model == .rgb || layout.model == .gray(minIsWhite: false))
    }

    /// Converts the row at `raw` into `out` (`width` pixels of the output format).
    func convert(_ raw: UnsafeRawPointer, into out: UnsafeMutablePointer<UInt8>) {
        let width = layout.size.width, spp = layout.samplesPerPixel
        if isIdentity {
            out.update(from: raw.assumingMemoryBound(to: UInt8.self), count: width * spp)
            return
        }
        let unscaledIndices = layout.model == .palette
        let bits = layout.bitsPerSample
        samples.withUnsafeMutableBufferPointer { s in
            Self.widen(raw, into: s, count: width * spp, bits: bits, scale: !unscaledIndices)
        }
        let associated = layout.alpha == .associated
        let hasAlpha = layout.alpha != .none
        samples.withUnsafeBufferPointer { s in
            switch layout.model {
            case .gray(let minIsWhite):
                for x in 0..<width {
                    var v = s[x * spp]
                    if minIsWhite { v = 255 &- v }
                    if hasAlpha {
                        let a = s[x * spp + 1]
                        out[2 * x] = associated ? Self.unpremultiply(v, a) : v
                        out[2 * x + 1] = a
                    } else {
                        out[x] = v
                    }
                }
            case .palette:
                let channels = layout.outputFormat.channelCount
                for x in 0..<width {
                    let i = Int(s[x * spp]) * 3
                    if channels == 1 {
                        out[x] = colormap[i]
                        continue
                    }
                    out[channels * x] = colormap[i]
                    out[channels * x + 1] = colormap[i + 1]
                    out[channels * x + 2] = colormap[i + 2]
                    if hasAlpha { out[channels * x + 3] = s[x * spp + 1] }
                }
            case .rgb:
                let channels = hasAlpha ? 4 : 3
                for x in 0..<width {
                    let p = x * spp, o = x * channels
                    if hasAlpha {
                        let a = s[p + 3]
                        out[o] = associated ? Self.unpremultiply(s[p], a) : s[p]
                        out[o + 1] = associated ? Self.unpremultiply(s[p + 1], a) : s[p + 1]
                        out[o + 2] = associated ? Self.unpremultiply(s[p + 2], a) : s[p + 2]
                        out[o + 3] = a
                    } else {
                        out[o] = s[p]
                        out[o + 1] = s[p + 1]
                        out[o + 2] = s[p + 2]
                    }
                }
            case .cmyk:
                let channels = hasAlpha ? 4 : 3
                if let cmyk {
                    cmykRow.withUnsafeMutableBufferPointer { row in
                        for x in 0..<width {
                            for c in 0..<4 { row[4 * x + c] = s[x * spp + c] }
                        }
                        if channels == 3 {
                            cmyk.convert(UnsafeBufferPointer(row), into: UnsafeMutableBufferPointer(start: out, count: width * 3))
                        } else {
                            // Converted into the row's tail, then spread out with alpha added.
                            let tail = out + width
                            cmyk.convert(UnsafeBufferPointer(row), into: UnsafeMutableBufferPointer(start: tail, count: width * 3))
                            for x in 0..<width {
                                out[4 * x] = tail[3 * x]
                                out[4 * x + 1] = tail[3 * x + 1]
                                out[4 * x + 2] = tail[3 * x + 2]
                                out[4 * x + 3] = s[x * spp + 4]
                            }
                        }
                    }
                    return
                }
                for x in 0..<width {
                    let p = x * spp, o = x * channels
                    let k = 255 &- UInt32(s[p + 3])
                    out[o] = UInt8(((255 &- UInt32(s[p])) &* k &+ 127) / 255)
                    out[o + 1] = UInt8(((255 &- UInt32(s[p + 1])) &* k &+ 127) / 255)
                    out[o + 2] = UInt8(((255 &- UInt32(s[p + 2])) &* k &+ 127) / 255)
                    if hasAlpha { out[o + 3] = s[p + 4] }
                }
            }
        }
    }

    @inline(__always)
    static func unpremultiply(_ value: UInt8, _ alpha: UInt8) -> UInt8 {
        guard alpha != 0 else { return 0 }
        guard alpha != 255 else { return value }
        return UInt8(min((UInt32(value) * 255 + UInt32(alpha) / 2) / UInt32(alpha), 255))
    }

    /// `count` samples of `bits` each as bytes: 16-bit ones rounded to 8, fewer bits scaled up to
    /// 0...255 (or left as indices when `scale` is false).
    static func widen(_ raw: UnsafeRawPointer, into s: UnsafeMutableBufferPointer<UInt8>, count: Int, bits: Int, scale: Bool) {
        switch bits {
        case 8:
            s.baseAddress!.update(from: raw.assumingMemoryBound(to: UInt8.self), count: count)
        case 16:
            for i in 0..<count {
                let v = UInt32(raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))
                s[i] = UInt8((v + 128) / 257)
            }
        default:
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            let perByte = 8 / bits, mask = (1 << bits) - 1, maximum = mask
            for i in 0..<count {
                let v = (Int(bytes[i / perByte]) >> (8 - bits * (i % perByte + 1))) & mask
                s[i] = UInt8(scale ? v * 255 / maximum : v)
            }
        }
    }
}
