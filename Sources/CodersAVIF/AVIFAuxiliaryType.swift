/// What an auxiliary image or track holds, as the URN of its `auxC` item property or of the
/// `auxi` box of its sample entry. Only an alpha plane is decoded; depth maps and the rest are
/// left alone, as libavif ≥ 1.0 leaves them.
enum AVIFAuxiliaryType {
    /// libavif's AVIF_URN_ALPHA0 (MPEG-B CICP, what AVIF writes) and AVIF_URN_ALPHA1 (HEVC's).
    static let alpha: Set<String> = ["urn:mpeg:mpegB:cicp:systems:auxiliary:alpha", "urn:mpeg:hevc:2015:auxid:1"]

    static func isAlpha(_ urn: String?) -> Bool { urn.map(alpha.contains) ?? false }

    /// The URN of a full box (`auxC`, `auxi`) at `box` in `bytes`: a null-terminated string after
    /// version and flags, read up to 256 bytes.
    static func read(_ bytes: [UInt8], _ box: AVIFBox) -> String? {
        guard box.payload.count > 4 else { return nil }
        let text = bytes[box.payload.lowerBound + 4..<box.payload.upperBound].prefix(256).prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }
}
