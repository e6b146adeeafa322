import Foundation
import Synchronization
import TestSupport

@testable import ImagePipe
@testable import PipelineCore

/// A clock tests move by hand, so expiry is tested without sleeping.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var cacheClock: CacheClock { CacheClock { [self] in self.now } }
}

/// A fresh directory under the system's temporary folder, removed when the test's scope ends.
final class TemporaryDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init(_ name: String = "cache") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("imagepipe-tests-\(getpid())-\(UUID().uuidString)", isDirectory: true)
            .appendingPathComponent(name, isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

    /// Names of the visible files in the directory but the cache's tag.
    var fileNames: [String] {
        allNames.filter { !$0.hasPrefix(".") && $0 != DiskCache.tagFileName }
    }

    /// Every name in the directory, hidden ones and the tag included.
    var allNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

enum TestImages {
    static func buffer(_ width: Int = 4, _ height: Int = 3, format: PixelFormat = .rgb8, value: UInt8 = 7) -> PixelBuffer {
        try! PixelBuffer(width: width, height: height, format: format, bytes: [UInt8](repeating: value, count: width * height * format.bytesPerPixel))
    }

    static func still(_ width: Int = 4, _ height: Int = 3, format: PixelFormat = .rgb8, imageFormat: ImageFormat = .undefined) -> Image {
        Image(buffer(width, height, format: format), format: imageFormat)
    }

    static func animated(frames: Int = 3, format: ImageFormat = .gif) -> Image {
        let buffers = (0..<frames).map { buffer(value: UInt8($0)) }
        let provider = TestAnimation(data: TestCoder.file(buffers, format: format), format: format, frames: buffers)
        return Image(animation: try! AnimatedImage(provider: provider))
    }
}
