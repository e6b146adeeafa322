import Foundation
import PipelineCore

/// The formats the server writes, by the names URLs use for them, and the choice of one when the
/// URL names none.
struct OutputFormats: Sendable {
    let coders: ImageCodersManager
    /// Formats offered through `Accept` when the URL names none, best first (AVIF before WebP, as
    /// imgproxy prefers them), and those offered even over the URL's.
    var automatic: [ImageFormat] = [.avif, .webp]
    var enforced: [ImageFormat] = []

    init(coders: ImageCodersManager, configuration: ImageServerConfiguration = ImageServerConfiguration()) {
        self.coders = coders
        // JPEG XL first when the server opts in (`negotiatesJXL`), as imgproxy's IMGPROXY_AUTO_JXL.
        automatic =
            (configuration.negotiatesJXL ? [.jxl] : [])
            + Self.chosen(avif: configuration.autoAVIF || configuration.enforceAVIF, webp: configuration.autoWebP || configuration.enforceWebP)
        enforced = Self.chosen(avif: configuration.enforceAVIF, webp: configuration.enforceWebP)
    }

    private static func chosen(avif: Bool, webp: Bool) -> [ImageFormat] {
        (avif ? [ImageFormat.avif] : []) + (webp ? [.webp] : [])
    }

    /// The format for an extension or `f:` value (`jpg`, `jpeg`, `png`, `webp`…), when a coder
    /// writes it. SVG when a coder reads it: an SVG source is answered unchanged (`svgPassThrough`).
    func named(_ name: String) -> ImageFormat? {
        guard let format = ImageFormat.named(name), format != .undefined else { return nil }
        if format == .svg { return coders.canDecode(format: .svg) ? format : nil }
        return coders.canEncode(to: format) ? format : nil
    }

    /// Asked for SVG, the server answers an SVG source with its own bytes, as imgproxy does: a
    /// vector image is not drawn to pixels and back, and the client scales it. Any other source
    /// cannot be answered as SVG.
    static let svgPassThrough: ImageFormat = .svg

    /// The first of `formats` (by default the automatic ones) that `accept` admits by name
    /// (`image/webp`), nil when none: then the source's own format is kept. Wildcards do not
    /// count: a browser sending `*/*` would get WebP it may not show.
    func negotiated(accept: String?, among formats: [ImageFormat]? = nil) -> ImageFormat? {
        let formats = formats ?? automatic
        guard let accept, !formats.isEmpty else { return nil }
        let accepted = Set(
            accept.split(separator: ",").compactMap { item -> String? in
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard let type = parts.first, !type.isEmpty else { return nil }
                // `q=0` means "not acceptable".
                if parts.dropFirst().contains(where: { $0.hasPrefix("q=") && Double($0.dropFirst(2)) == 0 }) { return nil }
                return type
            })
        return formats.first { accepted.contains($0.mimeType) && coders.canEncode(to: $0) }
    }

    /// The output format for an image when the URL named none and `Accept` chose none: the
    /// source's when the server writes it, else JPEG for opaque images and PNG for the rest.
    func fallback(for image: Image) -> ImageFormat {
        if image.format != .undefined, coders.canEncode(to: image.format) { return image.format }
        return image.hasAlpha ? .png : .jpeg
    }
}
