/// A named list of options (`--preset thumb=rs:fill:100:100/q:70`), applied where a URL says
/// `pr:thumb`; the preset named `default` is applied to every URL first. Read and checked when the
/// server is configured, as imgproxy refuses to start with a bad preset.
public struct ProcessingPreset: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    /// The option segments, `name:arg:…` each.
    let segments: [String]

    public var description: String { "\(name)=\(segments.joined(separator: "/"))" }

    /// The security options (`msr`, `mrd`…) it sets, as written.
    package var securityOptions: [String] {
        segments.map { String($0.prefix { $0 != ":" }) }.filter { ProcessingOptionCatalog.byName[$0]?.isSecurityOption == true }
    }

    /// Why a preset definition is refused.
    public struct Invalid: Error, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// `definition` is `NAME=OPTION/OPTION/…`, imgproxy's `IMGPROXY_PRESETS` entry.
    public init(_ definition: String) throws(Invalid) {
        let parts = definition.split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw Invalid(description: "a preset is NAME=OPTIONS with one '=', got '\(ProcessingURL.printable(definition))'") }
        let name = parts[0].trimmingWhitespace, value = parts[1].trimmingWhitespace
        guard !name.isEmpty, !value.isEmpty else { throw Invalid(description: "a preset needs a name and options, got '\(ProcessingURL.printable(definition))'") }
        let segments = value.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // Each option as a URL would have it, against empty options: a bad argument fails here,
        // not in every request. Presets named inside are checked when a URL uses them.
        // Security options are read here as any other; where the server does not allow them a
        // URL using the preset is refused, and `imagepipe serve` refuses to start.
        var options = ProcessingOptions()
        var context = ProcessingOptionCatalog.Context(presets: [:], now: 0, allowsSecurityOptions: true)
        for segment in segments {
            guard segment.contains(":") else { throw Invalid(description: "preset \(name): '\(ProcessingURL.printable(segment))' is not an option (name:arguments)") }
            if let option = ProcessingOptionCatalog.byName[String(segment.prefix { $0 != ":" })], option.name == "preset" { continue }
            do {
                try ProcessingOptionCatalog.apply(segment, to: &options, context: &context)
            } catch {
                throw Invalid(description: "preset \(name): \(error.reason)")
            }
        }
        self.name = name
        self.segments = segments
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
