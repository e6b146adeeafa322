import PipelineCore

extension ImageFormat {
    /// Netpbm's binary family: P5 (PGM), P6 (PPM) and P7 (PAM). One format, because one coder reads
    /// them all and the magic bytes tell them apart; the core does not know it, so the plugin adds it
    /// to the format table: `ImageFormatRegistry.shared.register(.pnm)`.
    public static let pnm = ImageFormat(
        identifier: "pnm", names: ["netpbm"],
        mimeTypes: ["image/x-portable-anymap", "image/x-portable-arbitrarymap", "image/x-portable-pixmap", "image/x-portable-graymap"],
        fileExtensions: ["pnm", "pam", "ppm", "pgm"], signature: .pnm)
}

extension ImageFormat.Signature {
    /// `P5`, `P6` or `P7` followed by whitespace.
    static let pnm = Self { sniffed in
        let head = sniffed.head
        guard head.count >= 3, head[0] == UInt8(ascii: "P") else { return false }
        return (UInt8(ascii: "5")...UInt8(ascii: "7")).contains(head[1]) && [0x20, 0x09, 0x0A, 0x0D].contains(head[2])
    }
}

extension ImageCodingExtras.Key where Value == Bool {
    /// Encode option: write P7 (PAM) even for gray and RGB images, which otherwise become P5 and P6
    /// (readable by more tools). Images with alpha are always P7: P5 and P6 cannot hold it.
    public static var pnmAlwaysWritePAM: Self { .init("pnm.alwaysWritePAM") }
}
