/// What libjpeg complained about while decoding without failing: corrupt entropy data, missing
/// scans, a truncated end. ImagePipe shows such files (as libjpeg and browsers do) and reports
/// the warnings here instead of printing them.
public struct JPEGDiagnostics: Hashable, Sendable {
    public var warningCount: Int
    /// libjpeg's text for the first warning.
    public var firstWarning: String?

    public init(warningCount: Int = 0, firstWarning: String? = nil) {
        self.warningCount = warningCount
        self.firstWarning = firstWarning
    }
}
