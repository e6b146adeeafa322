import PipelineCore

extension ImageFormat {
    /// Netpbm's binary family: P5 (PGM), P6 (PPM) and P7 (PAM). One format, because one coder reads
    /// them all and the magic bytes tell them apart; the core does not know it, so the plugin adds it.
    public static let pnm = ImageFormat(
        identifier: "pnm", mimeType: "image/x-portable-anymap", fileExtensions: ["pnm", "pam", "ppm", "pgm"])
}

extension ImageCodingExtras.Key where Value == Bool {
    /// Encode option: write P7 (PAM) even for gray and RGB images, which otherwise become P5 and P6
    /// (readable by more tools). Images with alpha are always P7: P5 and P6 cannot hold it.
    public static var pnmAlwaysWritePAM: Self { .init("pnm.alwaysWritePAM") }
}
