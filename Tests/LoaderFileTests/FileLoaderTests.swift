import Foundation
import ImagePipe
import LoaderFile
import PipelineCore
import Synchronization
import TestSupport
import Testing

@Suite("FileLoader")
struct FileLoaderTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagepipe-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func write(_ name: String, _ data: Data) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// The typed error a load ends with (anything untyped shows up as a failed `as?`).
    private func error(of load: () async throws -> ImageLoadResult) async -> ImagePipeError? {
        do {
            _ = try await load()
            return nil
        } catch {
            return error as? ImagePipeError ?? .invalidURL("untyped error \(error)")
        }
    }

    @Test("a file:// URL and a plain path load the file's bytes")
    func loadsFileURLAndPath() async throws {
        let bytes = Data((0..<5000).map { UInt8($0 % 251) })
        let url = try write("a.png", bytes)
        let loader = FileLoader()
        #expect(loader.canLoad(url, options: [], context: ImageContext()))
        #expect(try await loader.loadTyped(url, progress: nil).data == bytes)
        let plain = try #require(URL(string: url.path))
        #expect(loader.canLoad(plain, options: [], context: ImageContext()))
        #expect(try await loader.loadTyped(plain, progress: nil).data == bytes)
        #expect(!loader.canLoad(URL(string: "https://example.com/a.png")!, options: [], context: ImageContext()))
    }

    @Test("a corpus image loads byte for byte")
    func loadsCorpusImage() async throws {
        let row = try #require(Corpus.rows("pngsuite").first)
        let loaded = try await FileLoader().loadTyped(row.url, progress: nil)
        #expect(loaded.data == (try Data(contentsOf: row.url)))
    }

    @Test("data: URLs decode base64 and percent-encoded payloads")
    func decodesDataURLs() async throws {
        let loader = FileLoader()
        let base64 = try await loader.loadTyped(URL(string: "data:image/png;base64,iVBORw0KGgo=")!, progress: nil)
        #expect(base64.data == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let percent = try await loader.loadTyped(URL(string: "data:,GIF89a%00%FF%20x")!, progress: nil)
        #expect(percent.data == Data("GIF89a".utf8) + Data([0x00, 0xFF, 0x20, 0x78]))
        let bad = await error { try await loader.loadTyped(URL(string: "data:image/png;base64,@@@@")!, progress: nil) }
        #expect(bad == .badImageData(reason: "the data: URL's base64 payload is malformed"))
        let big = String(repeating: "A", count: 8000)
        let tooBig = await error {
            try await FileLoader(configuration: .init(maxBytes: 1000)).loadTyped(URL(string: "data:;base64," + big)!, progress: nil)
        }
        guard case .limitExceeded(.fileSize, _, 1000) = tooBig else {
            Issue.record("got \(String(describing: tooBig))")
            return
        }
    }

    @Test("a missing file fails with a file-system error and is blocked as permanent")
    func missingFileIsBlocked() async throws {
        let url = directory.appendingPathComponent("missing.png")
        let loader = FileLoader()
        let failure = try #require(await error { try await loader.loadTyped(url, progress: nil) })
        guard case .fileSystem = failure else {
            Issue.record("got \(failure)")
            return
        }
        #expect(loader.shouldBlockURL(url, error: failure, options: [], context: ImageContext()))
        #expect(!loader.shouldBlockURL(url, error: .cancelled, options: [], context: ImageContext()))
    }

    @Test("paths resolving outside the allowed roots are refused, symlinks and .. included")
    func allowedRoots() async throws {
        let inside = directory.appendingPathComponent("inside")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
        let ok = inside.appendingPathComponent("ok.png")
        try Data([1, 2, 3]).write(to: ok)
        let secret = try write("secret.png", Data([9, 9]))
        let link = inside.appendingPathComponent("link.png")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: secret)
        let loader = FileLoader(configuration: .init(allowedRoots: [inside.path]))
        #expect(try await loader.loadTyped(ok, progress: nil).data == Data([1, 2, 3]))
        #expect(await error { try await loader.loadTyped(link, progress: nil) } == .accessDenied(path: link.path))
        let dotdot = URL(fileURLWithPath: inside.path + "/../secret.png")
        #expect(await error { try await loader.loadTyped(dotdot, progress: nil) } == .accessDenied(path: dotdot.path))
        #expect(await error { try await loader.loadTyped(URL(fileURLWithPath: "/etc/passwd"), progress: nil) } == .accessDenied(path: "/etc/passwd"))
    }

    @Test("files over the byte limit and non-regular files are refused before reading")
    func limits() async throws {
        let url = try write("big.bin", Data(count: 10_000))
        let small = FileLoader(configuration: .init(maxBytes: 1000))
        #expect(await error { try await small.loadTyped(url, progress: nil) } == .limitExceeded(.fileSize, value: 10_000, maximum: 1000))
        #expect(
            await error { try await FileLoader().loadTyped(URL(fileURLWithPath: "/dev/zero"), progress: nil) }
                == .fileSystem(path: "/dev/zero", reason: "not a regular file"))
    }

    @Test(
        "a FIFO, a device, a folder, or a symlink to a FIFO is refused at once as not a regular file",
        arguments: [
            "fifo", "/dev/zero", "/dev/null", "folder", "link-to-fifo", "inside-roots/fifo",
        ])
    func specialFilesNeverBlock(name: String) async throws {
        let fifo = try FIFO(at: directory.appendingPathComponent("fifo").path)
        defer { fifo.releaseReaders() }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link-to-fifo", withDestinationPath: fifo.path)
        let withRoots = name == "inside-roots/fifo"
        let loader = withRoots ? FileLoader(configuration: .init(allowedRoots: [directory.path])) : FileLoader()
        let url = URL(fileURLWithPath: withRoots ? fifo.path : name.hasPrefix("/") ? name : directory.path + "/" + name)
        let outcome = await withTimeLimit { try await loader.loadTyped(url, progress: nil) }
        let result = try #require(outcome, "loading \(name) hung")
        guard case .failure(let error as ImagePipeError) = result, case .fileSystem(_, let reason) = error else {
            Issue.record("expected a file-system error, got \(result)")
            return
        }
        #expect(reason == "not a regular file")
    }

    @Test("progress is reported per chunk and ends at the file size")
    func progress() async throws {
        let size = 5 * 65536 + 123
        let url = try write("progress.bin", Data(count: size))
        let events = Mutex<[ImageLoadProgress]>([])
        let loader = FileLoader(configuration: .init(chunkSize: 65536))
        let result = try await loader.loadTyped(url) { event in events.withLock { $0.append(event) } }
        #expect(result.data.count == size)
        let seen = events.withLock { $0 }
        #expect(seen.count == 7)
        #expect(seen.map(\.receivedBytes) == seen.map(\.receivedBytes).sorted())
        #expect(seen.last == ImageLoadProgress(receivedBytes: Int64(size), expectedBytes: Int64(size)))
    }

    @Test("cancelling while a large file is read stops between chunks with cancelled")
    func cancellation() async throws {
        let url = try write("large.bin", Data(count: 32 << 20))
        let loader = FileLoader(configuration: .init(chunkSize: 1 << 20))
        let box = Mutex<Task<ImageLoadResult, any Error>?>(nil)
        let task = Task {
            try await loader.load(url, options: [], context: ImageContext()) { event in
                if event.receivedBytes > 0 { box.withLock { $0?.cancel() } }
            }
        }
        box.withLock { $0 = task }
        do {
            _ = try await task.value
            Issue.record("the load finished although it was cancelled")
        } catch {
            #expect(error as? ImagePipeError == .cancelled)
        }
    }

    // MARK: First-frame loads

    /// A TIMG file of `frames` 200 x 200 RGBA frames (160,000 bytes each), the first white.
    func animation(frames: Int) throws -> Data {
        let buffers = try (0..<frames).map { try PixelBuffer(width: 200, height: 200, format: .rgba8, fill: $0 == 0 ? .white : .black) }
        return TestCoder.file(buffers)
    }

    /// Loads `url` as the manager does for a first-frame decode by `coder`, keeping every progress event.
    func firstFrameLoad(_ url: URL, loader: FileLoader = FileLoader(), coder: any ImageCoder = TestCoder())
        async throws -> (result: ImageLoadResult, events: [ImageLoadProgress])
    {
        let events = Mutex<[ImageLoadProgress]>([])
        let context = ImageContext().with(.firstFrameLoad, FirstFrameLoad(coder: coder))
        let result = try await loader.load(url, options: [.decodeFirstFrameOnly], context: context) { event in
            events.withLock { $0.append(event) }
        }
        return (result, events.withLock { $0 })
    }

    @Test("a first-frame load reads in growing pieces until the first frame is in, and progress ends at what it read")
    func firstFrameLoadStopsEarly() async throws {
        let bytes = try animation(frames: 5)
        let url = try write("anim.timg", bytes)
        let (result, events) = try await firstFrameLoad(url)
        let firstFrameEnd = 11 + 4 + 160_000
        #expect(result.isPrefix)
        #expect(result.data.count >= firstFrameEnd && result.data.count < 2 * firstFrameEnd)
        #expect(result.data == bytes.prefix(result.data.count))
        #expect(events.map(\.receivedBytes) == events.map(\.receivedBytes).sorted())
        #expect(events.allSatisfy { $0.receivedBytes <= result.data.count })
        #expect(events.last == ImageLoadProgress(receivedBytes: Int64(result.data.count), expectedBytes: Int64(result.data.count)))
        let image = try TestCoder().decode(result.data, options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(image.firstFrame.color(x: 0, y: 0) == .white)
    }

    @Test("without a first-frame request, or when the coder cannot tell, the whole file is read")
    func wholeFileWithoutAnswer() async throws {
        let bytes = try animation(frames: 3)
        let url = try write("whole.timg", bytes)
        let full = try await FileLoader().load(url, options: [], context: ImageContext(), progress: nil)
        #expect(!full.isPrefix && full.data == bytes)
        let png = try write("unknown.bin", Data(repeating: 7, count: 300_000))
        let (unknown, events) = try await firstFrameLoad(png)
        #expect(!unknown.isPrefix && unknown.data.count == 300_000)
        #expect(events.last == ImageLoadProgress(receivedBytes: 300_000, expectedBytes: 300_000))
    }

    @Test("a file that ends inside its first frame is read whole and is not a prefix, so its decode fails as before")
    func truncatedFirstFrameIsReadWhole() async throws {
        let bytes = try animation(frames: 2).prefix(150_000)
        let url = try write("cut.timg", bytes)
        let (result, _) = try await firstFrameLoad(url)
        #expect(!result.isPrefix && result.data == bytes)
        #expect(throws: ImagePipeError.badImageData(reason: "not a TIMG")) {
            try TestCoder().decode(result.data, options: ImageDecodeOptions(firstFrameOnly: true))
        }
    }

    @Test("a first-frame load still refuses files over the byte limit before reading")
    func firstFrameLoadKeepsSizeLimit() async throws {
        let url = try write("big.timg", try animation(frames: 3))
        let small = FileLoader(configuration: .init(maxBytes: 100_000))
        #expect(await error { try await firstFrameLoad(url, loader: small).result } == .limitExceeded(.fileSize, value: 480_015, maximum: 100_000))
    }
}
