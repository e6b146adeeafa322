import Foundation
import ImageServer
import Logging
import PipelineCore

/// The configuration `serve` runs with, as one log line's metadata: every setting by its name in
/// `ImageServerConfiguration`, read by reflection so a new setting shows without a line here.
/// Credentials are never written: what a row of `ServeSettings` marked as one writes becomes its
/// count, or whether it is set; images only whether they are set.
enum EffectiveSettings {
    /// The properties credentials are written to.
    static let credentials = Set(ServeSettings.all.filter(\.isCredential).flatMap(\.writes))

    static func metadata(_ configuration: ImageServerConfiguration) -> Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        for child in Mirror(reflecting: configuration).children {
            guard let name = child.label else { continue }
            let value = Mirror(reflecting: child.value)
            if credentials.contains(name) {
                metadata[name] = value.displayStyle == .optional ? (value.children.isEmpty ? "none" : "set (not shown)") : "\(value.children.count) (not shown)"
            } else if child.value is Image? {
                metadata[name] = value.children.isEmpty ? "none" : "set"
            } else {
                metadata[name] = .string(describe(child.value))
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
