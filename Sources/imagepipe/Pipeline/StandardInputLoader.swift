import Foundation
import PipelineCore

/// `-` as a source: standard input, read to its end once, at most `maxBytes` (the file loader's
/// limit, so a pipe is held to what a file would be). The manager asks it for `stdin:-`.
struct StandardInputLoader: ImageLoader {
    static let url = URL(string: "stdin:-")!
    let maxBytes: Int

    func canLoad(_ url: URL, options: ImageOptions, context: ImageContext) -> Bool { url == Self.url }

    func load(
        _ url: URL, options: ImageOptions, context: ImageContext, progress: (@Sendable (ImageLoadProgress) -> Void)?
    ) async throws -> ImageLoadResult {
        let maxBytes = self.maxBytes
        let data = try await CPUWorkQueue.runOffPool { try Self.readAll(FileHandle.standardInput, maxBytes: maxBytes) }
        progress?(ImageLoadProgress(receivedBytes: Int64(data.count), expectedBytes: Int64(data.count)))
        return ImageLoadResult(data: data)
    }

    static func readAll(_ handle: FileHandle, maxBytes: Int) throws -> Data {
        var data = Data()
        while true {
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { return data }
            guard data.count + chunk.count <= maxBytes else {
                throw ImagePipeError.limitExceeded(.fileSize, value: data.count + chunk.count, maximum: maxBytes)
            }
            data.append(chunk)
        }
    }
}
