import PipelineCore
import Synchronization

/// Transforms made so far, by profile (its bytes: the dictionary hashes them and compares equal
/// keys byte for byte, so two profiles never share a transform), input (pixel format or CMYK) and intent. Making a
/// transform parses the profile and builds tables, which costs more than converting a thumbnail;
/// the same few profiles (Display P3, Adobe RGB, a camera's) come back all day.
///
/// Profiles lcms2 refused are remembered too, so a broken profile is not parsed again for every
/// image carrying it. Bounded by entries and by profile bytes; the oldest entry goes first.
final class LCMSTransformCache: Sendable {
    struct Key: Hashable, Sendable {
        let profile: ImageColorProfile
        let input: LCMSTransform.Input
        let intent: ImageRenderingIntent

        var profileBytes: Int { profile.iccData?.count ?? 0 }
    }

    private enum Entry {
        case transform(LCMSTransform)
        case failure(ImageColorConversionError)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var order: [Key] = []
        var profileBytes = 0
    }

    let maxEntries: Int
    let maxProfileBytes: Int
    private let state = Mutex(State())

    init(maxEntries: Int, maxProfileBytes: Int) {
        self.maxEntries = max(maxEntries, 0)
        self.maxProfileBytes = max(maxProfileBytes, 0)
    }

    /// The cached transform for `key`, else the one `make` builds (outside the lock: building a
    /// CMYK transform takes milliseconds), cached unless the profile alone is over the byte budget.
    func transform(for key: Key, make: (Key) throws -> LCMSTransform) throws -> LCMSTransform {
        switch state.withLock({ $0.entries[key] }) {
        case .transform(let transform): return transform
        case .failure(let error): throw error
        case nil: break
        }
        let entry: Entry
        do {
            entry = .transform(try make(key))
        } catch let error as ImageColorConversionError {
            entry = .failure(error)
        }
        insert(entry, for: key)
        switch entry {
        case .transform(let transform): return transform
        case .failure(let error): throw error
        }
    }

    var count: Int { state.withLock { $0.entries.count } }

    private func insert(_ entry: Entry, for key: Key) {
        guard maxEntries > 0, key.profileBytes <= maxProfileBytes else { return }
        state.withLock { state in
            if state.entries.updateValue(entry, forKey: key) == nil {
                state.order.append(key)
                state.profileBytes += key.profileBytes
            }
            while state.order.count > maxEntries || state.profileBytes > maxProfileBytes {
                let oldest = state.order.removeFirst()
                state.entries[oldest] = nil
                state.profileBytes -= oldest.profileBytes
            }
        }
    }
}
