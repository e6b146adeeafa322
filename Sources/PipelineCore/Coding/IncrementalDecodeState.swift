import Foundation

/// The part of a progressive decoder that is the same for every format, around the format's own
/// `Progress` (its library's suspended decoder and the partial image so far). A decoder keeps
/// one in a `Mutex` and forwards `update` and `currentImage` to it.
///
/// The rules it keeps:
/// - Complete bytes are decoded one-shot by the coder's own decode, so the final image is exactly
///   what `decode` gives for the same bytes and options, however the partials went.
/// - Only bytes not seen before are fed; the data is cumulative, as SDWebImage passes it.
/// - An error while feeding is final: later updates are ignored, and `currentImage` throws it
///   until the complete bytes arrive (then the one-shot decode gives the verdict).
/// - Once there is a final result, nothing changes it.
package struct IncrementalDecodeState<Progress> {
    /// The format's decoding so far; nil before it starts, after a failure and once final.
    package var progress: Progress?
    /// Bytes of the cumulative data already fed.
    package private(set) var fed = 0
    package private(set) var failure: (any Error)?
    package private(set) var final: Result<Image, any Error>?

    package init() {}

    /// - Parameters:
    ///   - decodeComplete: the coder's one-shot decode, for complete bytes.
    ///   - feed: hands `data[fed...]` to the format's decoder, creating `progress` when needed;
    ///     returns false to wait for more bytes without consuming these (a header not yet whole).
    package mutating func update(
        _ data: Data, isComplete: Bool,
        decodeComplete: (Data) throws -> Image,
        feed: (_ progress: inout Progress?, _ data: Data, _ fed: Int) throws -> Bool
    ) {
        guard final == nil else { return }
        if isComplete {
            progress = nil
            final = Result { try decodeComplete(data) }
            return
        }
        guard failure == nil, data.count > fed else { return }
        do {
            if try feed(&progress, data, fed) { fed = data.count }
        } catch {
            failure = error
            progress = nil
        }
    }

    /// The final image, the failure, or what `partial` makes of the progress so far (nil when
    /// nothing can be shown yet).
    package mutating func currentImage(partial: (inout Progress) throws -> Image?) throws -> Image? {
        if let final { return try final.get() }
        if let failure { throw failure }
        guard progress != nil else { return nil }
        return try partial(&progress!)
    }
}
