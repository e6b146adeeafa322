import Foundation
import PipelineCore

/// An encoded answer: the bytes, their format and their ETag. Kept in the output caches.
struct RenderedImage: Sendable {
    let data: Data
    let format: ImageFormat
    /// Quoted, strong: `"…"`.
    let etag: String
    /// The origin's `Last-Modified` when the result came with it (from the fleet's tier).
    var lastModified: String?

    /// What keeping it under `key` in memory costs: its bytes, its ETag and the key, which a
    /// client chooses (a URL of kilobytes), plus a fixed overhead per entry.
    func memoryCost(forKey key: String) -> Int {
        data.count + etag.utf8.count + key.utf8.count + MemoryCharge.entryOverhead
    }

    /// What the disk cache keeps beside the bytes: the format's identifier and the ETag.
    var diskHeader: Data { Data("\(format.identifier)\n\(etag)".utf8) }

    init(data: Data, format: ImageFormat, etag: String, lastModified: String? = nil) {
        self.data = data
        self.format = format
        self.etag = etag
        self.lastModified = lastModified
    }

    /// A result from the fleet's tier; nil when its format is not one this server writes or its
    /// ETag is not one this server would send.
    init?(shared: SharedResult, formats: (String) -> ImageFormat?) {
        guard let format = formats(shared.formatIdentifier), shared.etag.hasPrefix("\""), ImageRequestHandler.isHeaderSafe(shared.etag) else { return nil }
        self.init(data: shared.data, format: format, etag: shared.etag, lastModified: shared.lastModified.flatMap { ImageRequestHandler.isHeaderSafe($0) ? $0 : nil })
    }

    var shared: SharedResult { SharedResult(data: data, formatIdentifier: format.identifier, etag: etag, lastModified: lastModified) }

    init?(data: Data, diskHeader: Data, formats: (String) -> ImageFormat?) {
        let lines = String(decoding: diskHeader, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 2, let format = formats(String(lines[0])), let etag = Self.etag(diskHeader: diskHeader) else { return nil }
        self.init(data: data, format: format, etag: etag)
    }

    /// The ETag in a disk header, read without the bytes.
    static func etag(diskHeader: Data) -> String? {
        let lines = String(decoding: diskHeader, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 2, lines[1].hasPrefix("\"") else { return nil }
        return String(lines[1])
    }
}
