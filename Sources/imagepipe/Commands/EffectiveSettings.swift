import Foundation
import ImageServer
import Logging

/// The configuration `serve` runs with, as one log line's metadata: every setting by its name in
/// `ImageServerConfiguration`, read by reflection so a new setting shows without a line here.
/// Credentials are never written: the signing keys and trusted signatures become their count, the
/// secrets whether they are set; images and the shared tier only whether they are set.
enum EffectiveSettings {
    static func metadata(_ configuration: ImageServerConfiguration) -> Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        for child in Mirror(reflecting: configuration).children {
            guard let name = child.label else { continue }
            switch name {
            case "signingKeys", "trustedSignatures": metadata[name] = "\(Mirror(reflecting: child.value).children.count) (not shown)"
            case "secret", "adminSecret": metadata[name] = Mirror(reflecting: child.value).children.isEmpty ? "none" : "set (not shown)"
            case "sharedSources", "sharedResults", "watermark", "fallbackImage":
                metadata[name] = Mirror(reflecting: child.value).children.isEmpty ? "none" : "set"
            default: metadata[name] = .string(describe(child.value))
            }
        }
        return metadata
    }

    /// An optional's value or `none`; a URL as its path or address; anything else as Swift prints it.
    private static func describe(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first.map { describe($0.value) } ?? "none" }
        if let url = value as? URL { return url.isFileURL ? url.path : url.absoluteString }
        return "\(value)"
    }
}
