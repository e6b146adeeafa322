/// Cairo's pixels as the pipeline's.
enum SVGPixels {
    /// Cairo's ARGB32 (a native-endian word a pixel, so B, G, R, A bytes on little-endian
    /// machines, colour premultiplied by alpha) turned into straight RGBA, in place.
    static func straightenCairoARGB(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBytes { bytes in
            let words = bytes.bindMemory(to: UInt32.self)
            for index in words.indices {
                let word = words[index]
                let alpha = word >> 24
                var red = (word >> 16) & 0xFF, green = (word >> 8) & 0xFF, blue = word & 0xFF
                if alpha != 0 && alpha != 255 {
                    // Rounded, as cairo's own unpremultiply (and rsvg-convert's PNG writer) does.
                    red = min((red * 255 + alpha / 2) / alpha, 255)
                    green = min((green * 255 + alpha / 2) / alpha, 255)
                    blue = min((blue * 255 + alpha / 2) / alpha, 255)
                }
                // Written little-endian so the bytes in memory are R, G, B, A on any machine.
                words[index] = (red | green << 8 | blue << 16 | alpha << 24).littleEndian
            }
        }
    }
}
