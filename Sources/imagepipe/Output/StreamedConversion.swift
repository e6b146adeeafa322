import CodersPNG
import Foundation
import Glibc
import ImagePipe
import LoaderFile
import PipelineCore
import ToolSupport

/// `convert` of a local still to a full-size file row by row (`RowStreamConversion`): the decoder's
/// rows go through orientation and colour conversion into an encoder that writes them to the output
/// as they come, so memory does not grow with the megapixels (an orientation that reverses the
/// rows holds the stored frame once, `UprightRowSource`). Taken when the request allows it (no
/// transform, no metadata kept, a thumbnail box the image fits, a coder at each end that streams);
/// otherwise, or when a coder gives up midway (`RowStreamFallback`), nothing is written and the
/// whole-image path runs as before. A file that stands for its own output
/// (`RowStreamConversion.mayKeepFile`) is read through and copied, as the whole-image path copies
/// it.
enum StreamedConversion {
    /// What was written.
    struct Outcome {
        let size: ImageSize
        let bytes: Int
        let warnings: [ImageDecodeWarning]
    }

    /// Converts `input` to `output` when it can; nil when the whole-image path must. Decode
    /// warnings are reported and `warningOptions` checked before OUT appears: a refused source
    /// leaves no OUT at all.
    static func convert(
        _ input: String, to output: URL, as format: ImageFormat, processing: ImageProcessingOptions,
        warningOptions: WarningOptions, coders: ImageCodersManager = .shared
    ) throws -> Outcome? {
        guard processing.transform.isEmpty, !processing.keepsMetadata, input != "-",
            let url = SourceParser.url(for: input), url.isFileURL,
            let encoder = coders.rowStreamingEncoder(for: format),
            let mapping = mappedFile(url.path), let decoder = coders.rowStreamingDecoder(for: mapping.data)
        else { return nil }
        let data = mapping.data
        var decodeOptions = processing.limits.decodeOptions()
        decodeOptions.thumbnailPixelSize = try processing.thumbnailSize()
        if processing.keepsICCProfile { decodeOptions.colorHandling = .keepSourceProfile }
        var encodeOptions = processing.encodeOptions()
        encodeOptions.extras[.pngCompressionThreads] = compressionThreads

        let folder = output.deletingLastPathComponent().path
        let temporary = (folder.isEmpty ? "." : folder) + "/" + FileIO.temporaryName()
        // Watched from before it exists: a Ctrl-C at any point leaves no temporary file.
        InterruptedWrites.watch(temporary)
        defer { InterruptedWrites.unwatch(temporary) }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ImagePipeError.fileSystem(path: output.path, reason: String(cString: strerror(errno))) }
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { close(fd) }
            if !renamed { unlink(temporary) }
        }
        let streamed: (ImageSize, [ImageDecodeWarning])?
        do {
            streamed =
                try decoder.withRowSource(of: data, mapping: mapping, options: decodeOptions) { source -> (ImageSize, [ImageDecodeWarning])? in
                    let fileFormat = ImageFormat.detect(in: data)
                    if RowStreamConversion.mayKeepFile(source, fileFormat: fileFormat, outputFormat: format, handling: decodeOptions.colorHandling) {
                        try RowStreamConversion.checkFile(source)
                        try write(mapping, to: fd, path: output.path)
                        return (source.size, source.warnings)
                    }
                    // A turn or a flip top to bottom needs the last stored row first: the frame is held once.
                    let upright = RowStreamConversion.streams(source.orientation) ? source : UprightRowSource(source)
                    let written: Void? = try RowStreamConversion.run(from: upright, handling: decodeOptions.colorHandling) { size, pixelFormat, copy in
                        try encoder.withRowSink(size: size, pixelFormat: pixelFormat, as: format, options: encodeOptions, fileDescriptor: fd) { try copy($0) }
                    }
                    return written.map { (source.orientation.displaySize(for: source.size), source.warnings) }
                } ?? nil
        } catch is RowStreamFallback {
            return nil
        }
        guard let streamed else { return nil }
        let (size, warnings) = streamed
        DecodeWarnings.report(warnings, source: input)
        try warningOptions.check(warnings)
        let bytes = Int(lseek(fd, 0, SEEK_CUR))
        isOpen = false
        guard close(fd) == 0, rename(temporary, output.path) == 0 else {
            throw ImagePipeError.fileSystem(path: output.path, reason: String(cString: strerror(errno)))
        }
        renamed = true
        return Outcome(size: size, bytes: bytes, warnings: warnings)
    }

    /// PNG pieces compressed beside the decoding thread: a command has the machine's cores to
    /// itself, and each thread holds about 8 MiB more (up to 4 of them: 32 MiB).
    static var compressionThreads: Int { min(ProcessInfo.processInfo.activeProcessorCount, 4) }

    /// Copies the mapped file to `fd` a piece at a time, giving the pages back as it goes.
    private static func write(_ mapping: MappedFile, to fd: Int32, path: String) throws {
        let piece = 8 << 20
        try mapping.data.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = Glibc.write(fd, bytes.baseAddress! + written, min(bytes.count - written, piece))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw ImagePipeError.fileSystem(path: path, reason: String(cString: strerror(errno)))
                }
                written += count
                mapping.releasePages()
            }
        }
    }

    /// The file mapped rather than read, so the pages the decoder has passed are given back; nil
    /// when it cannot be mapped or is over the file loader's byte limit (the whole-image path
    /// reports that as it always has).
    private static func mappedFile(_ path: String) -> MappedFile? {
        guard let mapping = try? MappedFile(path: path), Int64(mapping.data.count) <= FileLoaderConfiguration().maxBytes else { return nil }
        return mapping
    }
}
