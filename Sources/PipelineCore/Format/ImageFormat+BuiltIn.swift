extension ImageFormat {
    /// No known format (SDWebImage's `SDImageFormatUndefined`). Never registered: it is what
    /// sniffing answers when no signature matches.
    public static let undefined = ImageFormat(identifier: "undefined", mimeTypes: ["application/octet-stream"], fileExtensions: [])

    // Signatures follow SDWebImage's `sd_imageFormatForImageData` table, with two deliberate
    // differences (listed in the README): JPEG XL's `FF 0A` codestream is told apart from JPEG
    // (which otherwise takes any leading `FF`), and AVIF's `ftypavif`/`ftypavis` brands are
    // recognised alongside HEIC's. The built-in signatures never overlap, so their order does not
    // matter.

    /// Animated PNG is this format too (`apng` is one of its names): the same signature, file and
    /// coder, as in SDWebImage, browsers and MIME practice (`image/png` is served for both).
    public static let png = ImageFormat(
        identifier: "png", names: ["apng"], mimeTypes: ["image/png", "image/apng", "image/vnd.mozilla.apng"],
        fileExtensions: ["png", "apng"], supportsAnimation: true, signature: .bytes([0x89]))
    public static let jpeg = ImageFormat(
        identifier: "jpeg", mimeTypes: ["image/jpeg"], fileExtensions: ["jpg", "jpeg", "jpe", "jfif"],
        signature: Signature { $0.has([0xFF]) && !$0.has([0xFF, 0x0A]) })
    public static let webp = ImageFormat(
        identifier: "webp", mimeTypes: ["image/webp"], fileExtensions: ["webp"], supportsAnimation: true,
        signature: Signature { $0.has("RIFF".utf8) && $0.has("WEBP".utf8, at: 8) })
    public static let gif = ImageFormat(
        identifier: "gif", mimeTypes: ["image/gif"], fileExtensions: ["gif"], supportsAnimation: true,
        signature: .bytes([0x47]))
    package static let tiff = ImageFormat(
        identifier: "tiff", mimeTypes: ["image/tiff"], fileExtensions: ["tiff", "tif"],
        signature: Signature { $0.has([0x49]) || $0.has([0x4D]) })
    public static let heic = ImageFormat(
        identifier: "heic", mimeTypes: ["image/heic"], fileExtensions: ["heic"],
        signature: .isoBrand(["heic", "heix", "hevc", "hevx"]))
    public static let heif = ImageFormat(
        identifier: "heif", mimeTypes: ["image/heif"], fileExtensions: ["heif"],
        signature: .isoBrand(["mif1", "msf1"]))
    public static let avif = ImageFormat(
        identifier: "avif", mimeTypes: ["image/avif"], fileExtensions: ["avif"], supportsAnimation: true,
        signature: .isoBrand(["avif", "avis"]))
    public static let jxl = ImageFormat(
        identifier: "jxl", mimeTypes: ["image/jxl"], fileExtensions: ["jxl"], supportsAnimation: true,
        signature: Signature { $0.has([0xFF, 0x0A]) || $0.has([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) })
    static let pdf = ImageFormat(
        identifier: "pdf", mimeTypes: ["application/pdf"], fileExtensions: ["pdf"],
        signature: .ascii("%PDF"))
    /// Any text starting `<` whose last 100 bytes close an `svg` element, as SDWebImage checks.
    public static let svg = ImageFormat(
        identifier: "svg", mimeTypes: ["image/svg+xml"], fileExtensions: ["svg"],
        signature: Signature { $0.has([0x3C]) && $0.tailContains("</svg>".utf8) })
    package static let bmp = ImageFormat(
        identifier: "bmp", mimeTypes: ["image/bmp"], fileExtensions: ["bmp"],
        signature: .bytes([0x42]))
    /// Windows icons and cursors: a reserved zero, type 1 (icon) or 2 (cursor), at least one entry.
    package static let ico = ImageFormat(
        identifier: "ico", names: ["cur"], mimeTypes: ["image/x-icon", "image/vnd.microsoft.icon"], fileExtensions: ["ico", "cur"],
        signature: Signature { ($0.has([0, 0, 1, 0]) || $0.has([0, 0, 2, 0])) && $0.head.count >= 6 && ($0.head[4] != 0 || $0.head[5] != 0) })
    /// Camera raw: never sniffed (SDWebImage knows it only from a type hint).
    static let raw = ImageFormat(
        identifier: "raw", mimeTypes: ["image/x-raw"], fileExtensions: ["raw", "dng", "nef", "cr2", "arw"])

    /// The formats the core registers in every `ImageFormatRegistry`, in listing order (the CLI's
    /// format lists and the `Accept` header follow it).
    @usableFromInline package static let builtIn: [ImageFormat] = [.png, .jpeg, .webp, .gif, .tiff, .heic, .heif, .avif, .jxl, .pdf, .svg, .bmp, .ico, .raw]
}

extension ImageFormat.Signature {
    /// An ISO base media file (HEIF, AVIF) whose `ftyp` box names one of `brands` as its major
    /// brand, the box's first bytes zero as SDWebImage requires. An array, not a set: a `Set<String>`
    /// made while the built-in formats are set up costs every command a scan of the program's
    /// conformance records.
    static func isoBrand(_ brands: [String]) -> Self {
        Self { sniffed in
            guard sniffed.has([0]), sniffed.has("ftyp".utf8, at: 4), sniffed.head.count >= 12 else { return false }
            return brands.contains(String(decoding: sniffed.head[8..<12], as: UTF8.self))
        }
    }
}
