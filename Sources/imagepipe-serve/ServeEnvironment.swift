import ArgumentParser

/// `imagepipe serve`'s settings from the environment: each setting of `ServeSettings` the command
/// line does not give is added as its flag from its `IMAGEPIPE_…` variable, else from the
/// `IMGPROXY_…` one that means the same thing (converted to the flag's form), before
/// ArgumentParser parses, so a variable is checked and applied exactly as its flag would be.
/// A flag wins over `IMAGEPIPE_`, which wins over `IMGPROXY_`.
enum ServeEnvironment {
    /// `arguments` (after `serve`) with the variables of the settings they lack appended.
    static func arguments(_ arguments: [String], environment: [String: String]) throws -> [String] {
        let settings = ServeSettings.all
        try refuseTwoNames(arguments, settings)
        let variables = environment.filter { !$0.value.isEmpty }
        var added: [String] = []
        for setting in settings {
            // A setting and its other forms (`--watermark-path` of `--watermark`) are one setting.
            let group = settings.filter { ($0.formOf ?? $0.flag) == (setting.formOf ?? setting.flag) }
            if group.contains(where: { given($0, in: arguments) }) { continue }
            var values: [String] = []
            var from = ""
            if let variable = setting.variables.first(where: { variables[$0] != nil }), let text = variables[variable] {
                values = setting.kind == .option ? [text] : ServeSettings.items([text])
                from = variable
            } else if !group.contains(where: { $0.variables.contains { variables[$0] != nil } }),
                let imgproxy = setting.imgproxy.first(where: { variables[$0.name] != nil }), let text = variables[imgproxy.name]
            {
                values = try imgproxy.convert(text, environment)
                if setting.kind == .list && values.count == 1 { values = ServeSettings.items(values) }
                from = imgproxy.name
            }
            for value in values {
                guard setting.accepts(value) else {
                    let shown = setting.isCredential ? "" : " '\(value)'"
                    throw ValidationError("\(from)\(shown) is not a value --\(setting.flag) takes")
                }
                switch setting.kind {
                case .flag: if Switch(argument: value)?.isOn == true { added.append("--" + setting.flag) }
                case .option, .list: added.append("--\(setting.flag)=\(value)")
                }
            }
        }
        return arguments + added
    }

    /// The `IMGPROXY_…` variables set in `environment` that no setting reads, sorted.
    static func ignoredImgproxyVariables(_ environment: [String: String]) -> [String] {
        let read = Set(ServeSettings.all.flatMap { $0.imgproxy.map(\.name) }).union(ImgproxyVariable.readWithOthers)
        return environment.keys.filter { $0.hasPrefix("IMGPROXY_") && !read.contains($0) }.sorted()
    }

    /// Whether the command line gives `setting` under any of its names.
    private static func given(_ setting: any AnyServeSetting, in arguments: [String]) -> Bool {
        !names(setting, in: arguments).isEmpty
    }

    /// The names `setting` is given under.
    private static func names(_ setting: any AnyServeSetting, in arguments: [String]) -> [String] {
        let names = setting.longNames.map { "--" + $0 } + (setting.short.map { ["-\($0)"] } ?? [])
        return names.filter { name in arguments.contains { $0 == name || $0.hasPrefix(name + "=") } }
    }

    /// A usage error when one setting (a list or a flag aside) is given under two of its names or
    /// forms: `--max-source-bytes` and imgproxy's `--max-src-file-size`, say.
    private static func refuseTwoNames(_ arguments: [String], _ settings: [any AnyServeSetting]) throws {
        var byGroup: [String: [String]] = [:]
        for setting in settings where setting.kind == .option {
            byGroup[setting.formOf ?? setting.flag, default: []] += names(setting, in: arguments)
        }
        for (_, given) in byGroup.sorted(by: { $0.key < $1.key }) where Set(given).count > 1 {
            throw ValidationError("\(given.joined(separator: " and ")) are the same setting: give one")
        }
    }
}
