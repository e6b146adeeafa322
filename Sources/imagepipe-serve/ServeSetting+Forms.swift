import ArgumentParser
import Foundation
import ImageServer
import ToolSupport

/// The common forms of a setting: a value with a range written to one property of the
/// configuration, its default read from that property.
typealias ConfigurationProperty<T> = WritableKeyPath<ImageServerConfiguration, T> & Sendable
typealias CommandProperty<T> = KeyPath<ServeCommand, T> & Sendable

extension ServeSetting where Value: ExpressibleByArgument {
    /// A setting whose values are those of its type.
    init(
        _ flag: String, aliases: [String] = [], default defaultValue: Value, imgproxy: [ImgproxyVariable] = [], writes: [PartialKeyPath<ImageServerConfiguration> & Sendable] = [],
        help: String, valueName: String? = nil, apply: (@Sendable (ServeCommand, inout ImageServerConfiguration) throws -> Void)?
    ) {
        self.init(
            flag, aliases: aliases, default: defaultValue, imgproxy: imgproxy, writes: writes, help: help, valueName: valueName,
            accepts: { Value(argument: $0) != nil }, apply: apply)
    }
}

extension ServeSetting where Value == Int {
    /// A whole number in `range`.
    static func number(
        _ flag: String, aliases: [String] = [], _ read: CommandProperty<Int>, into target: ConfigurationProperty<Int>, _ range: ClosedRange<Int>,
        imgproxy: [ImgproxyVariable] = [], help: String, valueName: String? = nil
    ) -> Self {
        Self(
            flag, aliases: aliases, default: ServeSettings.defaults[keyPath: target], imgproxy: imgproxy, writes: [target], help: help, valueName: valueName
        ) { command, configuration in
            configuration[keyPath: target] = try ServeSettings.within(command[keyPath: read], range, flag)
        }
    }

    /// Whole seconds in `range`.
    static func seconds(
        _ flag: String, aliases: [String] = [], _ read: CommandProperty<Int>, into target: ConfigurationProperty<Duration>, _ range: ClosedRange<Int>,
        imgproxy: [ImgproxyVariable] = [], help: String
    ) -> Self {
        Self(
            flag, aliases: aliases, default: Int(ServeSettings.defaults[keyPath: target].components.seconds), imgproxy: imgproxy, writes: [target],
            help: help, valueName: "seconds"
        ) { command, configuration in
            configuration[keyPath: target] = .seconds(try ServeSettings.within(command[keyPath: read], range, flag))
        }
    }
}

extension ServeSetting where Value == ByteCount {
    /// A byte count in `range`, with units (`512MiB`, `2GB`).
    static func bytes(
        _ flag: String, aliases: [String] = [], _ read: CommandProperty<ByteCount>, into target: ConfigurationProperty<Int>, _ range: ClosedRange<Int>,
        imgproxy: [ImgproxyVariable] = [], help: String
    ) -> Self {
        Self(
            flag, aliases: aliases, default: ByteCount(ServeSettings.defaults[keyPath: target]), imgproxy: imgproxy, writes: [target], help: help,
            valueName: "bytes"
        ) { command, configuration in
            configuration[keyPath: target] = try ServeSettings.within(command[keyPath: read].bytes, range, flag)
        }
    }
}

extension ServeSetting where Value == Switch {
    /// `on` or `off` (and imgproxy's spellings of them).
    static func onOff(_ flag: String, _ read: CommandProperty<Switch>, into target: ConfigurationProperty<Bool>, imgproxy: [ImgproxyVariable] = [], help: String) -> Self {
        Self(flag, default: Switch(ServeSettings.defaults[keyPath: target]), imgproxy: imgproxy, writes: [target], help: help) {
            command, configuration in
            configuration[keyPath: target] = command[keyPath: read].isOn
        }
    }
}

extension ServeSetting where Value == Bool {
    /// A flag, off unless given; `apply` nil when another setting or the command reads it.
    static func flag(
        _ flag: String, short: Character? = nil, _ read: CommandProperty<Bool>, into target: ConfigurationProperty<Bool>?, imgproxy: [ImgproxyVariable] = [],
        formOf: String? = nil, help: String
    ) -> Self {
        Self(
            flag, short: short, default: false, kind: .flag, imgproxy: imgproxy, formOf: formOf, writes: target.map { [$0] } ?? [], help: help,
            accepts: { Switch(argument: $0) != nil }, apply: target.map(setter(read)))
    }

    private static func setter(_ read: CommandProperty<Bool>) -> @Sendable (ConfigurationProperty<Bool>) -> @Sendable (ServeCommand, inout ImageServerConfiguration) throws -> Void {
        { target in { command, configuration in configuration[keyPath: target] = command[keyPath: read] } }
    }
}

extension ServeSetting {
    /// A value that is unset unless given, applied by `apply`.
    static func optional<Wrapped: ExpressibleByArgument>(
        _ flag: String, aliases: [String] = [], formOf: String? = nil, credential: Bool = false, writes: [PartialKeyPath<ImageServerConfiguration> & Sendable] = [],
        writesNamed: [String] = [], imgproxy: [ImgproxyVariable] = [], help: String, valueName: String? = nil,
        apply: (@Sendable (ServeCommand, inout ImageServerConfiguration) throws -> Void)?
    ) -> Self where Value == Wrapped? {
        Self(
            flag, aliases: aliases, default: nil, imgproxy: imgproxy, formOf: formOf, credential: credential, writes: writes, writesNamed: writesNamed,
            help: help, valueName: valueName,
            accepts: { Wrapped(argument: $0) != nil }, apply: apply)
    }

    /// A repeatable value (each also split at commas), applied by `apply`.
    static func list<Element: ExpressibleByArgument>(
        _ flag: String, aliases: [String] = [], credential: Bool = false, writes: [PartialKeyPath<ImageServerConfiguration> & Sendable] = [],
        imgproxy: [ImgproxyVariable] = [], help: String, valueName: String? = nil,
        apply: (@Sendable (ServeCommand, inout ImageServerConfiguration) throws -> Void)?
    ) -> Self where Value == [Element] {
        Self(
            flag, aliases: aliases, default: [], kind: .list, imgproxy: imgproxy, credential: credential, writes: writes, help: help, valueName: valueName,
            accepts: { Element(argument: $0) != nil }, apply: apply)
    }
}
