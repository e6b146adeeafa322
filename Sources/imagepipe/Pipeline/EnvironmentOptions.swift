import ArgumentParser

/// `IMAGEPIPE_…` variables, read as the flags they stand for.
struct EnvironmentOptions {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    func string(_ name: String) -> String? {
        guard let value = environment["IMAGEPIPE_" + name], !value.isEmpty else { return nil }
        return value
    }

    /// A whole number; one that is not is a usage error naming the variable.
    func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw ValidationError("IMAGEPIPE_\(name) must be a whole number") }
        return value
    }

    /// A switch: 1, true, yes or on (any case) set it.
    func flag(_ name: String) -> Bool {
        ["1", "true", "yes", "on"].contains(string(name)?.lowercased() ?? "")
    }

    func list(_ name: String) -> [String] {
        string(name)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
    }
}
