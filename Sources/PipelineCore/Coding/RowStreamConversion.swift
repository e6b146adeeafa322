import Foundation

/// Rows from a decoder to an encoder: a full-size conversion that holds a strip of rows, never the
/// image. Orientations that keep the row order (up, mirrored left to right) and conversion to
/// sRGB stream; the others throw `RowStreamFallback` (a turned or flipped image needs its last
/// row first), as does a profile kept in the output, which sinks do not write.
package enum RowStreamConversion {
    /// Rows per strip: libpng's and libjpeg's row groups fit, and a strip of a 100-megapixel RGBA
    /// image is about 0.6 MiB.
    package static let stripRows = 16

    /// Whether rows stored with `orientation` come out upright in the same order.
    package static func streams(_ orientation: ImageOrientation) -> Bool {
        orientation == .up || orientation == .upMirrored
    }

    /// The colour conversion the rows need under `handling`: nil when none (no profile, sRGB, kept
    /// as stored, or no converter reads it, as the whole-image path leaves it).
    package static func colorConversion(
        for profile: ImageColorProfile?, handling: ImageColorHandling, converters: ImageColorConvertersManager
    ) -> ((PixelBuffer) throws -> PixelBuffer)? {
        guard case .convertToSRGB(let intent) = handling, let profile, !profile.isSRGB,
            let converter = converters.converter(for: profile)
        else { return nil }
        return { strip in
            do {
                return try converter.convertToSRGB(strip, from: profile, intent: intent)
            } catch {
                // The whole-image path keeps the pixels with a warning; it says so better.
                throw RowStreamFallback("colour profile refused: \(error)")
            }
        }
    }

    /// Whether the file itself may be the output, before its rows are read: the same format,
    /// upright as stored, colour not converted, no metadata to strip (`Image.isRepresented(by:as:)`,
    /// which the whole-image path asks). `checkFile` then reads the rows without encoding them.
    package static func mayKeepFile(
        _ source: any ImageRowSource, fileFormat: ImageFormat?, outputFormat: ImageFormat, handling: ImageColorHandling,
        converters: ImageColorConvertersManager = .shared
    ) -> Bool {
        fileFormat == outputFormat && source.orientation == .up && !source.holdsMetadata
            && colorConversion(for: source.colorProfile, handling: handling, converters: converters) == nil
    }

    /// Reads every row, as the whole-image path decodes the file before it writes the file's bytes,
    /// so damage is refused or warned about the same way. Throws `RowStreamFallback` when the end of
    /// the file showed metadata after all (bytes after a JPEG's end): the output must be encoded.
    package static func checkFile(_ source: any ImageRowSource) throws {
        while try source.nextRows(max: stripRows) != nil {}
        if source.holdsMetadata { throw RowStreamFallback("metadata follows the image") }
    }

    /// Copies every row of `source` to the sink `makeSink` gives for the upright size and format,
    /// mirrored and colour-converted on the way. Returns the sink's result, nil when no sink.
    package static func run<Result>(
        from source: any ImageRowSource, handling: ImageColorHandling,
        converters: ImageColorConvertersManager = .shared,
        makeSink: (ImageSize, PixelFormat, (any ImageRowSink) throws -> Void) throws -> Result?
    ) throws -> Result? {
        guard streams(source.orientation) else { throw RowStreamFallback("orientation \(source.orientation) reverses the rows") }
        let convert = colorConversion(for: source.colorProfile, handling: handling, converters: converters)
        if convert == nil, let profile = source.colorProfile, !profile.isSRGB {
            // Sinks write no metadata; the whole-image encoders embed the profile the pixels keep.
            throw RowStreamFallback("the colour profile is kept")
        }
        let mirrored = source.orientation == .upMirrored
        return try makeSink(source.size, source.pixelFormat) { sink in
            while var strip = try source.nextRows(max: stripRows) {
                if mirrored { strip = strip.applying(.upMirrored) }
                if let convert {
                    strip = try convert(strip)
                    // The sink was made for the decoded format (a gray profile may give RGB rows).
                    guard strip.format == source.pixelFormat else { throw RowStreamFallback("colour conversion gives \(strip.format) rows") }
                }
                try sink.write(strip)
            }
            try sink.finish()
        }
    }
}
