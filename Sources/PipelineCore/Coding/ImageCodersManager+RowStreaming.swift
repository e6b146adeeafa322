import Foundation

extension ImageCodersManager {
    /// The coder that decodes `data` (`coder(for:)`) when it reads rows in order; nil when that
    /// coder does not, even if a lower-priority one would: the one that decodes is the one to ask.
    package func rowStreamingDecoder(for data: Data) -> (any RowStreamingDecoder)? {
        coder(for: data) as? any RowStreamingDecoder
    }

    /// The coder that encodes `format` (`encoder(for:)`) when it writes rows as they come.
    package func rowStreamingEncoder(for format: ImageFormat) -> (any RowStreamingEncoder)? {
        encoder(for: format) as? any RowStreamingEncoder
    }
}
