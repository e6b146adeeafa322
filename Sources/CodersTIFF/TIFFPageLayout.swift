import CTIFF
import CTIFFShim
import Foundation
import PipelineCore

/// How one TIFF directory's pixels are stored and what they decode to, read from its tags.
///
/// `native` layouts (unsigned 1-16 bit gray, palette, RGB, CMYK; alpha; strips or tiles, planes
/// interleaved or separate; JPEG's YCbCr converted by libjpeg) are read sample by sample here.
/// Anything else libtiff's RGBA helper reads (subsampled YCbCr, CIE L*a*b*, LogLuv, old-style
/// JPEG, odd depths) goes through it: it writes premultiplied 8-bit RGBA, which is right for
/// those and which `TIFFPageDecoder` turns back into straight alpha.
struct TIFFPageLayout {
    enum ColorModel: Equatable {
        case gray(minIsWhite: Bool)
        case palette
        case rgb
        case cmyk
    }

    enum Alpha: Equatable {
        case none
        /// Colour premultiplied by alpha (ExtraSamples 1).
        case associated
        /// Straight alpha (ExtraSamples 2, and 0 "unspecified", which writers use for alpha too).
        case unassociated
    }

    let size: ImageSize
    let bitsPerSample: Int
    let samplesPerPixel: Int
    /// The Compression tag (`COMPRESSION_…`).
    let compression: Int
    let model: ColorModel
    /// Stored as YCbCr in JPEG strips or tiles, which libjpeg turns into the RGB read here.
    let isJPEGYCbCr: Bool
    let alpha: Alpha
    /// Read here (true) or through libtiff's RGBA helper (false).
    let isNative: Bool
    let isPlanar: Bool
    let isTiled: Bool
    /// Tile size, or (width, rows per strip).
    let blockSize: ImageSize
    let orientation: ImageOrientation
    /// A reduced-resolution copy of another page (SubfileType bit 0): not a page of its own.
    let isReducedImage: Bool
    let outputFormat: PixelFormat
    /// What the file stores its samples as, by its Photometric tag (`ImageMetadata.colorModel`);
    /// nil for models without a shared name (CIE L*a*b*, LogLuv, …).
    let sourceColorModel: String?
    let iccProfile: Data?
    let xmp: Data?

    init(_ file: TIFFFile) throws {
        let tiff = file.handle
        guard let width = file.u32(UInt32(TIFFTAG_IMAGEWIDTH)), let height = file.u32(UInt32(TIFFTAG_IMAGELENGTH)), width > 0, height > 0 else {
            throw ImagePipeError.badImageData(reason: "TIFF: no image width or length")
        }
        size = ImageSize(width: Int(width), height: Int(height))
        let bits = Int(file.u16(UInt32(TIFFTAG_BITSPERSAMPLE)) ?? 1)
        let samples = Int(file.u16(UInt32(TIFFTAG_SAMPLESPERPIXEL)) ?? 1)
        bitsPerSample = bits
        samplesPerPixel = samples
        var photometric = Int(file.u16(UInt32(TIFFTAG_PHOTOMETRIC), default: samples >= 3 ? UInt16(PHOTOMETRIC_RGB) : UInt16(PHOTOMETRIC_MINISBLACK)) ?? 1)
        let compression = Int(file.u16(UInt32(TIFFTAG_COMPRESSION)) ?? 1)
        self.compression = compression
        switch Int32(photometric) {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE: sourceColorModel = ImageColorModel.gray
        case PHOTOMETRIC_PALETTE: sourceColorModel = ImageColorModel.palette
        case PHOTOMETRIC_RGB: sourceColorModel = ImageColorModel.rgb
        case PHOTOMETRIC_SEPARATED: sourceColorModel = ImageColorModel.cmyk
        case PHOTOMETRIC_YCBCR: sourceColorModel = ImageColorModel.ycbcr
        default: sourceColorModel = nil
        }
        let sampleFormat = Int(file.u16(UInt32(TIFFTAG_SAMPLEFORMAT)) ?? 1)
        isPlanar = Int(file.u16(UInt32(TIFFTAG_PLANARCONFIG)) ?? 1) == PLANARCONFIG_SEPARATE
        isTiled = TIFFIsTiled(tiff) != 0
        if isTiled {
            blockSize = ImageSize(width: Int(file.u32(UInt32(TIFFTAG_TILEWIDTH)) ?? 0), height: Int(file.u32(UInt32(TIFFTAG_TILELENGTH)) ?? 0))
        } else {
            var rows: UInt32 = 0
            _ = ip_tiff_get_u32_defaulted(tiff, UInt32(TIFFTAG_ROWSPERSTRIP), &rows)
            blockSize = ImageSize(width: Int(width), height: Int(min(max(rows, 1), height)))
        }
        let rawOrientation = Int(file.u16(UInt32(TIFFTAG_ORIENTATION)) ?? 1)
        orientation = (1...8).contains(rawOrientation) ? ImageOrientation(exifValue: rawOrientation) : .up
        isReducedImage = (file.u32(UInt32(TIFFTAG_SUBFILETYPE)) ?? 0) & UInt32(FILETYPE_REDUCEDIMAGE) != 0

        // JPEG-compressed YCbCr: libjpeg converts to RGB, which is then read as RGB.
        if photometric == PHOTOMETRIC_YCBCR, compression == COMPRESSION_JPEG, bits == 8, ip_tiff_set_jpeg_rgb(tiff) == 1 {
            photometric = Int(PHOTOMETRIC_RGB)
            isJPEGYCbCr = true
        } else {
            isJPEGYCbCr = false
        }
        var extraCount: UInt16 = 0
        var extraKinds: UnsafeMutablePointer<UInt16>?
        let hasExtra = ip_tiff_get_extra_samples(tiff, &extraCount, &extraKinds) == 1 && extraCount > 0 && extraKinds != nil
        let model: ColorModel?
        let colorSamples: Int
        switch Int32(photometric) {
        case PHOTOMETRIC_MINISBLACK: (model, colorSamples) = (.gray(minIsWhite: false), 1)
        case PHOTOMETRIC_MINISWHITE: (model, colorSamples) = (.gray(minIsWhite: true), 1)
        case PHOTOMETRIC_PALETTE: (model, colorSamples) = (.palette, 1)
        case PHOTOMETRIC_RGB: (model, colorSamples) = (.rgb, 3)
        case PHOTOMETRIC_SEPARATED where Int(file.u16(UInt32(TIFFTAG_INKSET)) ?? 1) == INKSET_CMYK: (model, colorSamples) = (.cmyk, 4)
        default: (model, colorSamples) = (nil, 0)
        }
        if hasExtra, let kinds = extraKinds, samples == colorSamples + Int(extraCount) {
            alpha = kinds[0] == EXTRASAMPLE_ASSOCALPHA ? .associated : .unassociated
        } else {
            alpha = .none
        }
        let depthFits: Bool
        switch model {
        case .gray?: depthFits = [1, 2, 4, 8, 16].contains(bits) && (bits >= 8 || samples == 1)
        case .palette?: depthFits = [1, 2, 4, 8].contains(bits) && (bits == 8 || samples == 1)
        case .rgb?, .cmyk?: depthFits = bits == 8 || bits == 16
        case nil: depthFits = false
        }
        let tilesFit = !isTiled || (blockSize.width > 0 && blockSize.height > 0 && blockSize.width % 16 == 0)
        let native =
            model != nil && depthFits && tilesFit && samples >= colorSamples && (sampleFormat == SAMPLEFORMAT_UINT || sampleFormat == 0)
            && (!isPlanar || bits >= 8) && compression != COMPRESSION_OJPEG
        isNative = native
        let hasAlpha = alpha != .none
        if native, let model {
            self.model = model
            switch model {
            case .gray: outputFormat = hasAlpha ? .grayAlpha8 : .gray8
            case .palette: outputFormat = hasAlpha ? .rgba8 : (Self.isGrayColormap(file, bits: bits) ? .gray8 : .rgb8)
            case .rgb, .cmyk: outputFormat = hasAlpha ? .rgba8 : .rgb8
            }
        } else {
            var message = [CChar](repeating: 0, count: 1024)
            guard TIFFRGBAImageOK(tiff, &message) == 1 else {
                let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw ImagePipeError.unsupportedFormat(.tiff, reason: "TIFF: \(reason.isEmpty ? "layout not supported" : reason)")
            }
            let gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE
            self.model = gray ? .gray(minIsWhite: false) : .rgb
            outputFormat = gray ? (hasAlpha ? .grayAlpha8 : .gray8) : (hasAlpha ? .rgba8 : .rgb8)
        }
        iccProfile = file.bytes(UInt32(TIFFTAG_ICCPROFILE)).map { Data(bytes: $0.pointer, count: $0.count) }
        xmp = file.bytes(UInt32(TIFFTAG_XMLPACKET)).map { Data(bytes: $0.pointer, count: $0.count) }
    }

    /// Whether every colour map entry is gray.
    private static func isGrayColormap(_ file: TIFFFile, bits: Int) -> Bool {
        guard let map = TIFFColormap(file, bits: bits) else { return false }
        for i in stride(from: 0, to: map.rgb.count, by: 3) {
            let r = map.rgb[i], g = map.rgb[i + 1], b = map.rgb[i + 2]
            if r != g || r != b { return false }
        }
        return true
    }

    /// Bytes of one row of `samples` samples a pixel.
    func rowBytes(samples: Int) -> Int { (size.width * bitsPerSample * samples + 7) / 8 }
}

/// A palette image's colour map as 8-bit RGB triples, 2^bits of them.
struct TIFFColormap {
    let rgb: [UInt8]

    init?(_ file: TIFFFile, bits: Int) {
        var red: UnsafeMutablePointer<UInt16>?, green: UnsafeMutablePointer<UInt16>?, blue: UnsafeMutablePointer<UInt16>?
        guard bits <= 8, ip_tiff_get_colormap(file.handle, &red, &green, &blue) == 1, let red, let green, let blue else { return nil }
        let count = 1 << bits
        // Old writers stored 8-bit values; libtiff's tools take a map whose values all fit 8 bits so.
        let isEightBit = (0..<count).allSatisfy { red[$0] < 256 && green[$0] < 256 && blue[$0] < 256 }
        func scale(_ value: UInt16) -> UInt8 { isEightBit ? UInt8(value) : UInt8((UInt32(value) + 128) / 257) }
        var rgb = [UInt8](repeating: 0, count: 256 * 3)
        for i in 0..<count {
            rgb[3 * i] = scale(red[i])
            rgb[3 * i + 1] = scale(green[i])
            rgb[3 * i + 2] = scale(blue[i])
        }
        self.rgb = Array(rgb[0..<count * 3])
    }
}
