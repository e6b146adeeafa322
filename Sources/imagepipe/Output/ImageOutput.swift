import Foundation
import ImagePipe
import PipelineCore
import ToolSupport

/// Turns a loaded image into the bytes of an output file.
enum ImageOutput {
    /// The formats the tool writes: those of the format table a registered coder encodes, in the
    /// table's order. An animation stays animated in those whose entry `supportsAnimation`.
    static var writableFormats: [ImageFormat] {
        PipelineSetup.registerPlugins()
        return ImageFormat.known.filter { ImageCodersManager.shared.canEncode(to: $0) }
    }

    /// "png, jpeg, webp or gif": the writable formats' identifiers for help and errors.
    static var writableFormatNames: String { listed(writableFormats.map(\.identifier)) }

    /// ".png, .jpg, .jpeg, … or .gif": every extension that picks a writable format.
    static var writableExtensions: String { listed(writableFormats.flatMap(\.fileExtensions).map { "." + $0 }) }

    private static func listed(_ items: [String]) -> String {
        // A plain loop: `joined` on the slice runs the standard library's unspecialised code, which
        // looks conformances up at run time, and `fetch` builds this text on every start-up.
        var text = ""
        for (index, item) in items.enumerated() {
            if index > 0 { text += index == items.count - 1 ? " or " : ", " }
            text += item
        }
        return text
    }

    /// The image as a viewer shows it: orientation applied and, when the orientation turned it,
    /// fitted into the thumbnail box again (the decoder fitted the stored, unturned size).
    static func upright(_ image: Image, thumbnail: ImageSize?) throws -> Image {
        guard image.orientation != .up else { return image }
        var turned = try image.applyingOrientation()
        if let box = thumbnail {
            let fitted = turned.pixelSize.fitted(into: box)
            if fitted != turned.pixelSize {
                turned = try ResizingTransformer(size: fitted).apply(to: turned)
            }
        }
        return turned
    }

    /// The bytes to write: the loaded bytes untouched when they still represent the image
    /// (`Image.isRepresented(by:as:)`: nothing changed, no metadata stripped or unread), else an
    /// encode.
    static func encode(
        _ image: Image, originalData: Data?, as format: ImageFormat, frame: Int? = nil,
        options: ImageEncodeOptions, coders: ImageCodersManager = .shared
    ) throws -> Data {
        if frame == nil, let originalData, image.isRepresented(by: originalData, as: format) {
            return originalData
        }
        if let frame {
            return try coders.encode(Image(try image.frame(at: frame), format: image.format, metadata: image.metadata), as: format, options: options)
        }
        if image.isAnimated && format.supportsAnimation {
            // The animated coders write every frame, pulling each through decode, thumbnail and
            // transform as they go: one frame in memory at a time, not the whole animation.
            return try coders.encode(image, as: format, options: options)
        }
        return try coders.encode(image.firstFrameOnly(), as: format, options: options)
    }

    /// Writes `data` to `url` atomically: a temporary file in the same directory, renamed over the
    /// target, so a reader never sees half a file and a failure leaves no partial output. Not
    /// fsynced, as vipsthumbnail, ImageMagick and Pillow write theirs: a CLI output is made again by
    /// running the command again, and a sync per file costs a disk round trip (the disk cache, which
    /// a later run trusts, has its own `syncWrites`). The mode is 0666 less the umask, as
    /// Foundation's `Data.write` gives. Throws `OutputError.folderMissing` when the folder is not
    /// there: nothing makes it here.
    static func write(_ data: Data, to url: URL) throws {
        try requireFolder(of: url)
        try write(data, path: url.path, folder: url.deletingLastPathComponent().path)
    }

    /// `write(_:to:)` into a folder known to be there.
    static func write(_ data: Data, path: String, folder: String) throws {
        do {
            try FileIO.writeAtomically(data, to: path, temporaryDirectory: folder, sync: false, permissions: 0o666)
        } catch let failure as FileIO.Failure {
            throw ImagePipeError.fileSystem(path: path, reason: String(cString: strerror(failure.code)))
        }
    }

    /// Throws `OutputError.folderMissing`, naming the folder as `url` spells it, unless the folder
    /// `url` goes into exists.
    static func requireFolder(of url: URL) throws(OutputError) {
        let directory = url.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .folderMissing(directory.relativePath)
        }
    }

    /// The output format for a file name's extension, as the format table names it. `URL` reads
    /// the extension: `NSString`'s path methods trap on Linux for paths such as `out//é.png`.
    static func format(forPath path: String) -> ImageFormat? {
        let ext = URL(fileURLWithPath: path).pathExtension
        guard !ext.isEmpty, let format = ImageFormat.named(ext), writableFormats.contains(format) else { return nil }
        return format
    }
}
