import Synchronization

/// The plugin list behind the coders and loaders managers, in SDWebImage's order: lowest priority
/// first, so the plugin added last is asked first. Every read is a snapshot, so plugins may be
/// added and removed while other tasks are decoding or loading through the list.
package struct PluginRegistry<Plugin: Sendable>: ~Copyable, Sendable {
    private let plugins: Mutex<[Plugin]>

    package init(_ plugins: [Plugin]) {
        self.plugins = Mutex(plugins)
    }

    /// Lowest priority first. Setting replaces them all.
    package var all: [Plugin] {
        get { plugins.withLock { $0 } }
        nonmutating set { plugins.withLock { $0 = newValue } }
    }

    /// Highest priority first: the order to ask them in.
    package var byPriority: ReversedCollection<[Plugin]> { all.reversed() }

    /// Adds a plugin with the highest priority.
    package func add(_ plugin: Plugin) {
        plugins.withLock { $0.append(plugin) }
    }

    /// Adds a plugin with the highest priority in place of every plugin `isReplaced` picks, in one
    /// step, so no reader sees both or neither.
    package func add(_ plugin: Plugin, replacing isReplaced: (Plugin) -> Bool) {
        plugins.withLock {
            $0.removeAll(where: isReplaced)
            $0.append(plugin)
        }
    }

    /// Removes every plugin `isRemoved` picks.
    package func remove(where isRemoved: (Plugin) -> Bool) {
        plugins.withLock { $0.removeAll(where: isRemoved) }
    }

    /// Removes every plugin of type `type`.
    package func remove<T>(_ type: T.Type) {
        plugins.withLock { $0.removeAll { $0 is T } }
    }

    package func removeAll() {
        plugins.withLock { $0.removeAll() }
    }
}
