import CLCMS2
import PipelineCore
import Synchronization

/// An lcms2 context whose error messages are kept instead of printed: lcms2 reports errors through
/// a callback and then returns NULL from the call that failed, so the caller reads `firstError`
/// right after such a call. One context per profile or transform, so messages never mix.
///
/// Ownership: the context's user data is an unretained pointer to `log`, which this object keeps
/// alive for as long as the context exists.
final class LCMSContext: Sendable {
    /// lcms2 contexts are plain pointers; nothing here mutates the context after `init`.
    nonisolated(unsafe) let handle: cmsContext
    private let log = ErrorLog()

    init() throws {
        guard let handle = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else {
            throw ImageColorConversionError(reason: "lcms2 could not create a context (out of memory)")
        }
        self.handle = handle
        cmsSetLogErrorHandlerTHR(handle) { context, _, text in
            guard let context, let data = cmsGetContextUserData(context) else { return }
            Unmanaged<ErrorLog>.fromOpaque(data).takeUnretainedValue().record(text.map { String(cString: $0) } ?? "unknown error")
        }
    }

    deinit { cmsDeleteContext(handle) }

    /// The first error lcms2 reported in this context, if any.
    var firstError: String? { log.first.withLock { $0 } }

    /// `fallback`, with lcms2's own first message when it gave one.
    func failure(_ fallback: String) -> ImageColorConversionError {
        ImageColorConversionError(reason: firstError.map { "\(fallback): \($0)" } ?? fallback)
    }

    final class ErrorLog: Sendable {
        let first = Mutex<String?>(nil)

        func record(_ message: String) {
            first.withLock { if $0 == nil { $0 = String(message.prefix(200)) } }
        }
    }
}
