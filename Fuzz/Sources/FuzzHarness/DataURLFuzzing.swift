import Dispatch
import Foundation
import LoaderFile
import PipelineCore
import Synchronization

/// `data:` URLs through `FileLoader`, the way a caller hands one over. The first byte picks how
/// the rest is used: as the URL's text, or as a payload wrapped in base64 or percent-encoding,
/// which must then load back byte for byte.
enum DataURLFuzzing {
    static func run(_ data: Data) throws(FuzzViolation) {
        guard let mode = data.first else { return }
        let rest = data.dropFirst()
        var random = FuzzRandom(data)
        switch mode % 3 {
        case 0:
            var text = String(decoding: rest, as: UTF8.self)
            if !text.lowercased().hasPrefix("data:") { text = "data:" + text }
            guard let url = URL(string: text) else { return }
            let maxBytes = random.oneIn(2) ? Int64(random.int(in: 0...4096)) : FileLoaderConfiguration().maxBytes
            if case .success(let loaded) = load(url, maxBytes: maxBytes), loaded.count > maxBytes {
                throw FuzzViolation("\(loaded.count) bytes loaded under a limit of \(maxBytes)")
            }
        case 1:
            let url = URL(string: "data:image/png;base64," + Data(rest).base64EncodedString())!
            try expectRoundTrip(url, Data(rest))
        default:
            let encoded = rest.map { byte in
                isUnreserved(byte) ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
            }.joined()
            let url = URL(string: "data:application/octet-stream," + encoded)!
            try expectRoundTrip(url, Data(rest))
        }
    }

    static func expectRoundTrip(_ url: URL, _ payload: Data) throws(FuzzViolation) {
        switch load(url, maxBytes: FileLoaderConfiguration().maxBytes) {
        case .success(let loaded):
            guard loaded == payload else {
                throw FuzzViolation("loaded \(loaded.count) bytes, wrapped \(payload.count)")
            }
        case .failure(let error):
            throw FuzzViolation("a well-formed data: URL of \(payload.count) bytes failed: \(error)")
        }
    }

    /// RFC 3986's unreserved characters, which percent-encoding leaves as they are.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// `FileLoader.loadTyped` waited for: the fuzzer's entry point is synchronous.
    static func load(_ url: URL, maxBytes: Int64) -> Result<Data, ImagePipeError> {
        let loader = FileLoader(configuration: FileLoaderConfiguration(maxBytes: maxBytes))
        let outcome = Mutex<Result<Data, ImagePipeError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<Data, ImagePipeError>
            do throws(ImagePipeError) {
                result = .success(try await loader.loadTyped(url, progress: nil).data)
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }
}
