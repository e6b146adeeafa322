extension PixelBuffer {
    /// The same pixels in another format.
    ///
    /// Colour to gray uses BT.601 luma. Dropping alpha composites each pixel over `background`
    /// (SDWebImage's encode rule for formats without alpha: white unless told otherwise), so a
    /// transparent pixel does not turn into whatever colour happened to be stored under it.
    public func converted(to target: PixelFormat, background: ImageColor = .white) -> PixelBuffer {
        if target == format { return self }
        if format == .rgba8 && target == .rgb8 { return flattenedRGBA(over: background) }
        let count = width * height
        let src = format.bytesPerPixel
        let dst = target.bytesPerPixel
        var out = [UInt8](repeating: 0, count: count * dst)
        let bg = (UInt32(background.red), UInt32(background.green), UInt32(background.blue))
        let bgLuma = UInt32(background.luma)
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                for i in 0..<count {
                    let s = i * src
                    // Read the source pixel as straight RGBA.
                    var r: UInt32, g: UInt32, b: UInt32, a: UInt32 = 255
                    switch format {
                    case .gray8:
                        r = UInt32(input[s])
                        g = r
                        b = r
                    case .grayAlpha8:
                        r = UInt32(input[s])
                        g = r
                        b = r
                        a = UInt32(input[s + 1])
                    case .rgb8:
                        r = UInt32(input[s])
                        g = UInt32(input[s + 1])
                        b = UInt32(input[s + 2])
                    case .rgba8:
                        r = UInt32(input[s])
                        g = UInt32(input[s + 1])
                        b = UInt32(input[s + 2])
                        a = UInt32(input[s + 3])
                    }
                    let d = i * dst
                    if !target.hasAlpha && a != 255 {
                        r = Self.over(r, bg.0, a)
                        g = Self.over(g, bg.1, a)
                        b = Self.over(b, bg.2, a)
                    }
                    switch target {
                    case .gray8:
                        output[d] =
                            format.isGray
                            ? (a == 255 ? UInt8(r) : UInt8(Self.over(UInt32(input[s]), bgLuma, a)))
                            : ImageColor.luma(red: UInt8(r), green: UInt8(g), blue: UInt8(b))
                    case .grayAlpha8:
                        output[d] = format.isGray ? UInt8(r) : ImageColor.luma(red: UInt8(r), green: UInt8(g), blue: UInt8(b))
                        output[d + 1] = UInt8(a)
                    case .rgb8:
                        output[d] = UInt8(r)
                        output[d + 1] = UInt8(g)
                        output[d + 2] = UInt8(b)
                    case .rgba8:
                        output[d] = UInt8(r)
                        output[d + 1] = UInt8(g)
                        output[d + 2] = UInt8(b)
                        output[d + 3] = UInt8(a)
                    }
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, format: target, bytes: out)
    }

    /// RGBA to RGB over `background`, the conversion every JPEG of a transparent source makes: the
    /// general loop's result, without its per-pixel format switches or a zero-filled output.
    /// Branch-free (an opaque pixel comes out unchanged from the same arithmetic), with red and blue
    /// blended together in the two 16-bit halves of one word; `(v + 128 + (v + 128) >> 8) >> 8`
    /// equals `over`'s `(v + 127) / 255` for every `v` up to 255 × 255, and no half carries into
    /// the other.
    private func flattenedRGBA(over background: ImageColor) -> PixelBuffer {
        let count = width * height
        let backgroundRB = UInt32(background.red) | UInt32(background.blue) << 16
        let backgroundG = UInt32(background.green)
        let out = bytes.withUnsafeBytes { input in
            [UInt8](unsafeUninitializedCapacity: count * 3) { output, initialized in
                guard var source = input.baseAddress, var target = output.baseAddress else { return }
                for _ in 0..<count {
                    let pixel = source.loadUnaligned(as: UInt32.self).littleEndian
                    let alpha = pixel >> 24, under = 255 - alpha
                    let rb = (pixel & 0x00FF_00FF) &* alpha &+ backgroundRB &* under &+ 0x0080_0080
                    let blendedRB = (rb &+ (rb >> 8) & 0x00FF_00FF) >> 8
                    let g = (pixel >> 8 & 0xFF) &* alpha &+ backgroundG &* under &+ 128
                    target[0] = UInt8(truncatingIfNeeded: blendedRB)
                    target[1] = UInt8(truncatingIfNeeded: (g &+ g >> 8) >> 8)
                    target[2] = UInt8(truncatingIfNeeded: blendedRB >> 16)
                    source += 4
                    target += 3
                }
                initialized = count * 3
            }
        }
        return PixelBuffer(unchecked: width, height: height, format: .rgb8, bytes: out)
    }

    /// `foreground` over `background` with coverage `alpha`, rounded.
    @inline(__always)
    static func over(_ foreground: UInt32, _ background: UInt32, _ alpha: UInt32) -> UInt32 {
        (foreground * alpha + background * (255 - alpha) + 127) / 255
    }

    /// The narrowest format that holds these pixels without loss: drops an alpha channel that is
    /// opaque everywhere and colour that is gray everywhere. Encoders use it to pick PNG colour types.
    package var narrowestLosslessFormat: PixelFormat {
        var target = format
        if format.hasAlpha && !hasTransparentPixels { target = target.withoutAlpha }
        if !format.isGray {
            let step = format.bytesPerPixel
            let isGray = bytes.withUnsafeBufferPointer { p -> Bool in
                var i = 0
                while i < p.count {
                    if p[i] != p[i + 1] || p[i] != p[i + 2] { return false }
                    i += step
                }
                return true
            }
            if isGray { target = target.hasAlpha ? .grayAlpha8 : .gray8 }
        }
        return target
    }
}
