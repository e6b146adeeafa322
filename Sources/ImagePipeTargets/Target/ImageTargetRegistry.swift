import PipelineCore
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

    /// Holds a target only to tell whether it is alive and still the object at its identity, never
    /// to call it: so a target that is not `Sendable` can be held here, whatever thread asks.
    private struct ObjectReference: @unchecked Sendable {
        weak var object: AnyObject?
    }

    private struct Entry {
        let reference: ObjectReference
        let state: ImageTargetState
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var sweepAt = 64
    }

    private let table = Mutex(Table())

    func state(for target: any ImageTarget) -> ImageTargetState {
        let id = ObjectIdentifier(target)
        let reference = ObjectReference(object: target)
        let label = String(describing: type(of: target))
        return table.withLock { table in
            if let entry = table.entries[id], entry.reference.object === reference.object { return entry.state }
            let state = ImageTargetState(label: label)
            table.entries[id] = Entry(reference: reference, state: state)
            if table.entries.count >= table.sweepAt {
                table.entries = table.entries.filter { $0.value.reference.object != nil }
                table.sweepAt = max(64, table.entries.count * 2)
            }
            return state
        }
    }

    /// The state of `target` if it ever had one, without creating it.
    func existingState(for target: any ImageTarget) -> ImageTargetState? {
        let reference = ObjectReference(object: target)
        return table.withLock { table in
            guard let entry = table.entries[ObjectIdentifier(target)], entry.reference.object === reference.object else { return nil }
            return entry.state
        }
    }

    var count: Int { table.withLock { $0.entries.count } }
}
