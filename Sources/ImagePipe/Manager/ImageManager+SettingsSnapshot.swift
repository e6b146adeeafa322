import PipelineCore

extension ImageManager {
    /// One immutable version of `Settings`; setting `ImageManager.settings` replaces it whole.
    final class SettingsSnapshot: Sendable {
        let value: Settings

        init(_ value: Settings) { self.value = value }
    }
}
