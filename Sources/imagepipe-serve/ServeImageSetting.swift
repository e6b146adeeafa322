import ArgumentParser
import Foundation
import PipelineCore
import ToolSupport

/// The image a setting of `serve` names (`--watermark`, `--fallback-image`), as imgproxy's
/// `_PATH`, `_URL` and `_DATA` variables name one: a file, an http(s) URL, fetched once when the
/// server starts (after the flags are checked), or base64 data.
enum ServeImageSetting: Equatable {
    case file(String)
    case remote(URL)
    case data(Data)

    /// The setting `flag` and imgproxy's three names for it give, nil when none does; a usage
    /// error when more than one does. `flag`'s own value is a URL when it starts with http(s)://.
    static func given(_ value: String?, path: String?, url: String?, data: String?, flag: String) throws -> Self? {
        let names = [flag, flag + "-path", flag + "-url", flag + "-data"]
        let given = zip(names, [value, path, url, data]).filter { $0.1 != nil }
        guard given.count <= 1 else { throw ValidationError("\(given.map(\.0).joined(separator: " and ")) are the same setting: give one") }
        if let data {
            guard let bytes = Data(base64Encoded: data.trimmingCharacters(in: .whitespacesAndNewlines)), !bytes.isEmpty else {
                throw ValidationError("\(flag)-data must be base64")
            }
            return .data(bytes)
        }
        guard let text = value ?? path ?? url else { return nil }
        let isRemote = url != nil || text.lowercased().hasPrefix("http://") || text.lowercased().hasPrefix("https://")
        guard isRemote else { return .file(text) }
        guard let remote = URL(string: text), ["http", "https"].contains(remote.scheme?.lowercased() ?? ""), remote.host != nil else {
            throw ValidationError("\(flag) '\(text)' is not an http(s) URL")
        }
        return .remote(remote)
    }

    /// The image, decoded by the tool's coders; nil for a URL, which `fetch` reads when the server starts.
    func image(flag: String) throws -> Image? {
        switch self {
        case .file(let path):
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError("\(flag) '\(path)' cannot be read")
            }
            return try Self.decode(data, what: "\(flag) '\(path)'")
        case .data(let data):
            return try Self.decode(data, what: "\(flag)-data")
        case .remote:
            return nil
        }
    }

    /// The image at a URL setting, through the tool's loaders (as `imagepipe fetch` reads one).
    static func fetch(_ url: URL, flag: String) async throws -> Image {
        PipelineSetup.registerPlugins()
        let loaded: ImageLoadResult
        do {
            loaded = try await ImageLoadersManager.shared.load(url, options: [], context: ImageContext(), progress: nil)
        } catch {
            throw ValidationError("\(flag) '\(url.absoluteString)' could not be fetched: \(error)")
        }
        return try decode(loaded.data, what: "\(flag) '\(url.absoluteString)'")
    }

    private static func decode(_ data: Data, what: String) throws -> Image {
        PipelineSetup.registerPlugins()
        do {
            return try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        } catch {
            throw ValidationError("\(what) is not an image the server reads")
        }
    }
}
