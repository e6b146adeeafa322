import Foundation

/// The errors a coder for one format gives when handed the wrong bytes or asked for another
/// format, so every such coder (ours and plugins') reports them alike.
extension ImagePipeError {
    /// For bytes a single-format coder does not decode:
    /// - no bytes: `badImageData`;
    /// - bytes that sniff as another known format: `unsupportedFormat` of that format (the caller
    ///   picked the wrong coder; the bytes may well be a good image);
    /// - anything else: `badImageData` (the format's signature is damaged or missing).
    public static func undecodableBytes(_ data: some DataProtocol, coder: String, format: ImageFormat) -> ImagePipeError {
        if data.isEmpty { return .badImageData(reason: "no bytes") }
        let detected = ImageFormat.detect(in: data)
        if detected != .undefined, detected != format {
            return .unsupportedFormat(detected, reason: "\(coder) decodes \(format.displayName) only")
        }
        return .badImageData(reason: "not a \(format.displayName) file: no \(format.displayName) signature")
    }

    /// For a request to encode `requested` to a coder that writes only `format`.
    public static func unencodableFormat(_ requested: ImageFormat, coder: String, format: ImageFormat) -> ImagePipeError {
        .unsupportedFormat(requested, reason: "\(coder) encodes \(format.displayName) only")
    }
}

extension ImageFormat {
    /// The identifier in capitals, as formats are named in prose: "PNG", "JPEG".
    var displayName: String { identifier.uppercased() }
}
