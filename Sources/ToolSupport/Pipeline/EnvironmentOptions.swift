import ArgumentParser

/// `IMAGEPIPE_…` variables that are not flags of their own (`IMAGEPIPE_REDIS_PASSWORD`).
package struct EnvironmentOptions {
    package let environment: [String: String]

    package init(_ environment: [String: String]) { self.environment = environment }

    package func string(_ name: String) -> String? {
        guard let value = environment["IMAGEPIPE_" + name], !value.isEmpty else { return nil }
        return value
    }

    /// A whole number; one that is not is a usage error naming the variable.
    package func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw ValidationError("IMAGEPIPE_\(name) must be a whole number") }
        return value
    }
}
