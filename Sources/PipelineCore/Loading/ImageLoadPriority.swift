/// A load's place in a loader's queue, from `.lowPriority` / `.highPriority`; the manager also
/// runs the load's task at it.
package enum ImageLoadPriority: Int, Sendable, Hashable, Comparable {
    case low = -1
    case normal = 0
    case high = 1

    package init(options: ImageOptions) {
        self = options.contains(.coreHighPriority) ? .high : options.contains(.coreLowPriority) ? .low : .normal
    }

    package static func < (lhs: ImageLoadPriority, rhs: ImageLoadPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
