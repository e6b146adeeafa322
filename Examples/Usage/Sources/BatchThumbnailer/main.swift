// Thumbnails every image in a folder:
//
//     swift run -c release BatchThumbnailer <input folder> <output folder> [side]
//
// Each image is fitted into a side × side box (default 256), turned upright, and written as PNG
// when it has alpha, else JPEG, under its own name (`photo.jpg` → `photo.jpg`, `logo.webp` →
// `logo.png`; two sources with one base name keep their extension: `spinner-gif.png`). At most one
// image per core is decoded at once; a file that is not an image is reported and skipped, and the
// exit status says whether all went.
import CodersGIF
import CodersJPEG
import CodersPNG
import CodersWebP
import Foundation
import ImagePipe
import LoaderFile
import PipelineCore

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let side = Int(arguments.count == 4 ? arguments[3] : "256"), side > 0 else {
    FileHandle.standardError.write(Data("usage: BatchThumbnailer <input folder> <output folder> [side]\n".utf8))
    exit(2)
}
let input = URL(fileURLWithPath: arguments[1], isDirectory: true)
let output = URL(fileURLWithPath: arguments[2], isDirectory: true)

// Plugins register once, at start-up. No cache is registered: a batch reads each file once.
ImageCodersManager.shared.add(PNGCoder())
ImageCodersManager.shared.add(JPEGCoder())
ImageCodersManager.shared.add(WebPCoder())
ImageCodersManager.shared.add(GIFCoder())
ImageLoadersManager.shared.add(FileLoader())

var context = ImageContext()
context[.thumbnailPixelSize] = ImageSize(width: side, height: side)
let thumbnail = context
let files = try FileManager.default.contentsOfDirectory(at: input, includingPropertiesForKeys: nil)
    .filter { !$0.hasDirectoryPath }
    .sorted { $0.lastPathComponent < $1.lastPathComponent }
try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
let baseNames = files.map { $0.deletingPathExtension().lastPathComponent }
let sharedBaseNames = Set(baseNames.filter { name in baseNames.filter { $0 == name }.count > 1 })

/// The output name's stem: the base name, with the extension when another source shares it.
@Sendable func stem(of file: URL) -> String {
    let base = file.deletingPathExtension().lastPathComponent
    return sharedBaseNames.contains(base) ? base + "-" + file.pathExtension : base
}

/// Loads one file as a thumbnail and writes it; returns the line to print.
@Sendable func makeThumbnail(of file: URL) async -> (line: String, ok: Bool) {
    do {
        let result = try await ImageManager.shared.loadImage(with: file, options: [.decodeFirstFrameOnly], context: thumbnail)
        guard let image = result.image else { return ("\(file.lastPathComponent): no loader took it", false) }
        let format: ImageFormat = image.hasAlpha ? .png : .jpeg
        let data = try ImageCodersManager.shared.encode(image, as: format, options: ImageEncodeOptions(quality: 0.85))
        let name = stem(of: file) + "." + (format.preferredFileExtension ?? format.identifier)
        try data.write(to: output.appendingPathComponent(name), options: .atomic)
        return ("\(file.lastPathComponent) → \(name) \(image.pixelSize)", true)
    } catch {
        return ("\(file.lastPathComponent): \(error)", false)
    }
}

// A bounded number of loads at once: start one more each time one finishes.
let concurrency = ProcessInfo.processInfo.activeProcessorCount
let failures = await withTaskGroup(of: (line: String, ok: Bool).self) { group in
    var failures = 0
    var running = 0
    for file in files {
        if running == concurrency, let done = await group.next() {
            print(done.line)
            failures += done.ok ? 0 : 1
            running -= 1
        }
        group.addTask { await makeThumbnail(of: file) }
        running += 1
    }
    for await done in group {
        print(done.line)
        failures += done.ok ? 0 : 1
    }
    return failures
}
exit(failures == 0 ? 0 : 1)
