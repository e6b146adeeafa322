import Synchronization

/// The state of every live target, keyed by object identity.
///
/// A global table rather than a stored property the conformer must declare: SDWebImage hangs this
/// state off any view with associated objects, and conformance here should be as cheap — a class
/// gains `setImage` by adding `display(_:in:)`, even in an extension of a type it does not own.
/// Entries hold their target weakly; an entry whose target is gone (or whose address now belongs
/// to a new object) is replaced on lookup, and dead entries are swept whenever the table has
/// doubled since the last sweep, so the sweep costs O(1) amortised per new target.
final class ImageTargetRegistry: Sendable {
    static let shared = ImageTargetRegistry()

    private struct Entry {
        weak var target: (any ImageTarget)?
        let state: ImageTargetState
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var sweepAt = 64
    }

    private let table = Mutex(Table())

    func state(for target: any ImageTarget) -> ImageTargetState {
        let id = ObjectIdentifier(target)
        return table.withLock { table in
            if let entry = table.entries[id], entry.target === target { return entry.state }
            let state = ImageTargetState(label: String(describing: type(of: target)))
            table.entries[id] = Entry(target: target, state: state)
            if table.entries.count >= table.sweepAt {
                table.entries = table.entries.filter { $0.value.target != nil }
                table.sweepAt = max(64, table.entries.count * 2)
            }
            return state
        }
    }

    /// The state of `target` if it ever had one, without creating it.
    func existingState(for target: any ImageTarget) -> ImageTargetState? {
        table.withLock { table in
            guard let entry = table.entries[ObjectIdentifier(target)], entry.target === target else { return nil }
            return entry.state
        }
    }

    var count: Int { table.withLock { $0.entries.count } }
}
