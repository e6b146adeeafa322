import Foundation

/// A still image handed out a strip of rows at a time, top row first, as it decodes: what a
/// full-size conversion reads so the decoded image is never held whole. Used by one thread.
package protocol ImageRowSource: AnyObject {
    /// The stored size (before `orientation` is applied).
    var size: ImageSize { get }
    var pixelFormat: PixelFormat { get }
    var orientation: ImageOrientation { get }
    /// The colour description the file gives, as `Image.metadata.colorProfile` would hold it.
    var colorProfile: ImageColorProfile? { get }
    /// Whether the file carries EXIF, XMP or metadata its coder does not read: then a stripped
    /// output must be encoded, not the file's own bytes (`Image.isRepresented(by:as:)`'s rule).
    /// Complete once `nextRows` has returned nil.
    var holdsMetadata: Bool { get }
    /// The next rows: `maxRows` of them, fewer only at the end; nil once every row was read.
    func nextRows(max maxRows: Int) throws -> PixelBuffer?
    /// What the decode warned about; complete once `nextRows` has returned nil.
    var warnings: [ImageDecodeWarning] { get }
}

/// A coder that can decode some of its files row by row (`ImageRowSource`).
package protocol RowStreamingDecoder: ImageCoder {
    /// Calls `body` with `data`'s rows as they decode and returns its result; nil, without calling
    /// `body`, when this file cannot be read in row order without holding it (an animation, an
    /// interlaced file): then `decode` is the way. `body` must not keep the source.
    /// A source may throw `RowStreamFallback` midway (a case the full decode words better, such as
    /// a file cut short): the caller drops what it wrote and decodes as usual. When `data` is
    /// `mapping`'s, the coder calls `mapping.releasePages()` as it goes through the file, so the
    /// pages it has passed do not stay resident.
    func withRowSource<Result>(
        of data: Data, mapping: MappedFile?, options: ImageDecodeOptions, _ body: (any ImageRowSource) throws -> Result
    ) throws -> Result?
}

/// Thrown by a row source or sink for a file or setting it streams no further: the caller drops
/// what it wrote and runs the whole-image path, which handles it as it always has.
package struct RowStreamFallback: Error, CustomStringConvertible {
    package let reason: String

    package init(_ reason: String) { self.reason = reason }

    package var description: String { "not streamed: " + reason }
}
