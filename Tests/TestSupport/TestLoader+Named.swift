import Foundation
import PipelineCore
import Synchronization

extension TestLoader {
    /// A loader for one URL scheme that answers every URL with its name's bytes.
    public static func named(_ name: String, scheme: String) -> TestLoader {
        TestLoader(scheme: scheme, missing: .data(Data(name.utf8)))
    }
}
