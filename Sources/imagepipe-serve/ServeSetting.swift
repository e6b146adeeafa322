import ArgumentParser
import ImageServer

/// One setting of `imagepipe serve`, as a row of `ServeSettings`: its flag and the other names
/// it answers to (imgproxy's), its `IMAGEPIPE_…` variables (derived from those names), the
/// `IMGPROXY_…` variables that mean the same thing, its help and default, and how its value is
/// checked and written into `ImageServerConfiguration`. The command's property for it is
/// declared from the row (`@Option(setting: \.port) var port: Int`), so ArgumentParser's help,
/// completion and errors stay its own.
struct ServeSetting<Value: Sendable>: AnyServeSetting {
    let flag: String
    let aliases: [String]
    let short: Character?
    let help: String
    let valueName: String?
    let kind: ServeSettingKind
    let defaultValue: Value
    let imgproxy: [ImgproxyVariable]
    /// Another setting this one is a form of (`--max-src-resolution` of `--max-source-pixels`,
    /// `--verbose` of the log level `--quiet` also sets): a flag or variable given for either
    /// counts for both.
    let formOf: String?
    let isCredential: Bool
    let writes: [String]
    let accepts: @Sendable (String) -> Bool
    let apply: (@Sendable (ServeCommand, inout ImageServerConfiguration) throws -> Void)?

    /// A setting with its own apply (`nil`: another setting's apply reads it, or the command does).
    init(
        _ flag: String, aliases: [String] = [], short: Character? = nil, default defaultValue: Value, kind: ServeSettingKind = .option,
        imgproxy: [ImgproxyVariable] = [], formOf: String? = nil, credential: Bool = false, writes: [PartialKeyPath<ImageServerConfiguration> & Sendable] = [],
        writesNamed: [String] = [], help: String, valueName: String? = nil, accepts: @escaping @Sendable (String) -> Bool,
        apply: (@Sendable (ServeCommand, inout ImageServerConfiguration) throws -> Void)?
    ) {
        self.flag = flag
        self.aliases = aliases
        self.short = short
        self.help = help
        self.valueName = valueName
        self.kind = kind
        self.defaultValue = defaultValue
        self.imgproxy = imgproxy
        self.formOf = formOf
        self.isCredential = credential
        self.writes = writes.map { ServeSettings.propertyName($0) } + writesNamed
        self.accepts = accepts
        self.apply = apply
    }

    var names: NameSpecification {
        NameSpecification([.customLong(flag)] + (short.map { [.customShort($0)] } ?? []) + aliases.map { .customLong($0) })
    }

    var argumentHelp: ArgumentHelp { ArgumentHelp(help, valueName: valueName) }
}

/// How a setting's value is written on the command line, and so how a variable becomes arguments.
enum ServeSettingKind: Sendable {
    /// `--name VALUE`.
    case option
    /// `--name VALUE`, repeatable; a variable's comma-separated items each become one.
    case list
    /// `--name` alone; a variable turns it on with `1`, `true`, `yes` or `on`.
    case flag
}

/// A row of `ServeSettings`, whatever its value's type.
protocol AnyServeSetting: Sendable {
    var flag: String { get }
    var aliases: [String] { get }
    var short: Character? { get }
    var kind: ServeSettingKind { get }
    var help: String { get }
    var imgproxy: [ImgproxyVariable] { get }
    var formOf: String? { get }
    var isCredential: Bool { get }
    /// The `ImageServerConfiguration` properties it sets.
    var writes: [String] { get }
    /// Whether one value (one item of a list) is one the flag takes.
    var accepts: @Sendable (String) -> Bool { get }
    var apply: (@Sendable (ServeCommand, inout ImageServerConfiguration) throws -> Void)? { get }
}

extension AnyServeSetting {
    /// The flag and its aliases, each a long name.
    var longNames: [String] { [flag] + aliases }

    /// `IMAGEPIPE_` and each long name in capitals, dashes as underscores.
    var variables: [String] { longNames.map { "IMAGEPIPE_" + $0.uppercased().replacingOccurrences(of: "-", with: "_") } }
}

extension Option where Value: ExpressibleByArgument & Sendable {
    /// A setting with a default (`ImageServerConfiguration()`'s), which help shows.
    init(setting: KeyPath<ServeSettings, ServeSetting<Value>>) {
        let setting = ServeSettings.table[keyPath: setting]
        self.init(wrappedValue: setting.defaultValue, name: setting.names, help: setting.argumentHelp)
    }
}

extension Option {
    /// A setting that is unset unless given.
    init<Wrapped: ExpressibleByArgument & Sendable>(setting: KeyPath<ServeSettings, ServeSetting<Wrapped?>>) where Value == Wrapped? {
        let setting = ServeSettings.table[keyPath: setting]
        self.init(wrappedValue: nil, name: setting.names, help: setting.argumentHelp)
    }

    /// A repeatable setting.
    init<Element: ExpressibleByArgument & Sendable>(setting: KeyPath<ServeSettings, ServeSetting<[Element]>>) where Value == [Element] {
        let setting = ServeSettings.table[keyPath: setting]
        self.init(wrappedValue: setting.defaultValue, name: setting.names, parsing: .singleValue, help: setting.argumentHelp)
    }
}

extension Flag where Value == Bool {
    /// A setting that is off unless given.
    init(setting: KeyPath<ServeSettings, ServeSetting<Bool>>) {
        let setting = ServeSettings.table[keyPath: setting]
        self.init(wrappedValue: setting.defaultValue, name: setting.names, help: setting.argumentHelp)
    }
}
