import Foundation
import PipelineCore

/// A BlurHash (blurha.sh): a few cosine components of the image in linear light, packed in base 83,
/// from which a client paints a blurred placeholder before the image arrives. Computed on a small
/// copy of the image: the components are its lowest frequencies, which a thumbnail keeps.
enum BlurHash {
    /// Components across and down; 4 × 3 is the reference encoder's default.
    static func encode(_ buffer: PixelBuffer, componentsX: Int = 4, componentsY: Int = 3) -> String {
        let rgb = buffer.converted(to: .rgb8, background: .white)
        let (width, height) = (rgb.width, rgb.height)
        let linear = rgb.bytes.map { sRGBToLinear($0) }
        var factors: [(Double, Double, Double)] = []
        for j in 0..<componentsY {
            for i in 0..<componentsX {
                let normalisation = i == 0 && j == 0 ? 1.0 : 2.0
                var (r, g, b) = (0.0, 0.0, 0.0)
                for y in 0..<height {
                    let basisY = cos(Double.pi * Double(j) * Double(y) / Double(height))
                    for x in 0..<width {
                        let basis = normalisation * cos(Double.pi * Double(i) * Double(x) / Double(width)) * basisY
                        let offset = (y * width + x) * 3
                        r += basis * linear[offset]
                        g += basis * linear[offset + 1]
                        b += basis * linear[offset + 2]
                    }
                }
                let scale = 1 / Double(width * height)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var hash = base83((componentsX - 1) + (componentsY - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        var maximum = 1.0
        if ac.isEmpty {
            hash += base83(0, length: 1)
        } else {
            let largest = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
            let quantised = Int(max(0, min(82, (largest * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += base83(quantised, length: 1)
        }
        let dc = factors[0]
        hash += base83((linearToSRGB(dc.0) << 16) + (linearToSRGB(dc.1) << 8) + linearToSRGB(dc.2), length: 4)
        for component in ac {
            func quantise(_ value: Double) -> Int {
                Int(max(0, min(18, (signedRoot(value / maximum) * 9 + 9.5).rounded(.down))))
            }
            hash += base83(quantise(component.0) * 19 * 19 + quantise(component.1) * 19 + quantise(component.2), length: 2)
        }
        return hash
    }

    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    static func base83(_ value: Int, length: Int) -> String {
        var text = ""
        var divisor = 1
        for _ in 1..<max(length, 1) { divisor *= 83 }
        for _ in 0..<length {
            text.append(digits[(value / divisor) % 83])
            divisor /= 83
        }
        return text
    }

    private static func sRGBToLinear(_ value: UInt8) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    private static func linearToSRGB(_ value: Double) -> Int {
        let v = max(0, min(1, value))
        return v <= 0.003_130_8 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }

    private static func signedRoot(_ value: Double) -> Double {
        value < 0 ? -(-value).squareRoot() : value.squareRoot()
    }
}
