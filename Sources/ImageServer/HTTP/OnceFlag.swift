import Synchronization

/// A flag set once from any task or thread and read from any other; a class so closures can share it.
final class OnceFlag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
