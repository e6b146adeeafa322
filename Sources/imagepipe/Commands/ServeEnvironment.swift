import ArgumentParser

/// `imagepipe serve`'s settings from `IMAGEPIPE_…` variables: each flag the command line does not
/// give is added from its variable (the flag's name in capitals, dashes as underscores) before
/// ArgumentParser parses, so a variable is checked and applied exactly as its flag would be.
/// The flags are read off `ServeCommand`'s own properties: a new setting needs nothing here.
enum ServeEnvironment {
    enum Kind { case option, number, list, flag }

    /// Every flag of `ServeCommand` that a variable can set, by its long name.
    static let settings: [(name: String, kind: Kind)] = Mirror(reflecting: ServeCommand()).children.compactMap { child in
        guard let label = child.label, label.hasPrefix("_") else { return nil }
        let name = flagName(String(label.dropFirst()))
        switch child.value {
        case is Flag<Bool>: return (name, .flag)
        case is Option<[String]>: return (name, .list)
        case is Option<Int>, is Option<Int?>: return (name, .number)
        default: return (name, .option)
        }
    }

    /// `arguments` (after `serve`) with the variables of the flags they lack appended.
    static func arguments(_ arguments: [String], environment: [String: String]) throws -> [String] {
        let env = EnvironmentOptions(environment)
        var added: [String] = []
        for (name, kind) in settings {
            let given = arguments.contains { $0 == "--" + name || $0.hasPrefix("--" + name + "=") }
            if given { continue }
            let variable = name.uppercased().replacingOccurrences(of: "-", with: "_")
            switch kind {
            case .flag:
                if env.flag(variable) { added.append("--" + name) }
            case .list:
                for value in env.list(variable) { added += ["--" + name, value] }
            case .number:
                if let value = try env.int(variable) { added += ["--" + name, String(value)] }
            case .option:
                if let value = env.string(variable) { added += ["--" + name, value] }
            }
        }
        return arguments + added
    }

    /// ArgumentParser's long name for a property: `maxURLLength` is `max-url-length`.
    static func flagName(_ property: String) -> String {
        var words: [String] = []
        var current = ""
        let characters = Array(property)
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let previous = index > 0 ? characters[index - 1] : nil
            let startsWord =
                character.isUppercase && !current.isEmpty
                && (previous?.isLowercase == true || next?.isLowercase == true)
            if startsWord {
                words.append(current)
                current = ""
            }
            current.append(character)
        }
        words.append(current)
        return words.map { $0.lowercased() }.joined(separator: "-")
    }
}
