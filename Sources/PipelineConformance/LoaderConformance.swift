import Foundation
import PipelineCore
import Synchronization
import Testing

/// The contracts every `ImageLoader` keeps: a consistent `canLoad`, progress that only grows and
/// ends at the total, cancellation that ends the load once with `ImagePipeError.cancelled` and
/// soon, blocked-URL answers that never change and never block a cancel or a timeout, and concurrent
/// loads of one URL that all get the same bytes.
///
/// ```swift
/// @Test func myHTTPLoaderKeepsTheContracts() async {
///     await LoaderConformance.checkHTTP(MyHTTPLoader())     // against the kit's own local server
/// }
/// @Test func myLoaderKeepsTheContracts() async throws {
///     await LoaderConformance.check(MyLoader(), fixture: LoaderFixture(url: url, expectedData: bytes))
/// }
/// ```
public enum LoaderConformance {
    public struct Options: Sendable {
        /// How long a load (or the end of a cancelled one) may take before it counts as a hang.
        public var timeLimit: Duration = .seconds(10)
        /// Loads of the same URL started at once.
        public var concurrentLoads = 8
        /// How long after a cancelled load ended the kit keeps listening for progress from work the
        /// loader left running (a second completion). The wait ends early when one arrives, so only
        /// passing loaders pay it.
        public var lateEventWindow: Duration = .milliseconds(500)
        public init() {}
    }

    public static func check(
        _ loader: some ImageLoader, fixture: LoaderFixture, options: Options = Options(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await failures(for: loader, fixture: fixture, options: options).recordIssues(sourceLocation: sourceLocation)
    }

    /// Starts the kit's `TestHTTPServer` with a body, a slow body, a server that never answers and
    /// error statuses, runs every contract against `loader` on it, and stops the server.
    public static func checkHTTP(_ loader: some ImageLoader, options: Options = Options(), sourceLocation: SourceLocation = #_sourceLocation) async {
        await httpFailures(for: loader, options: options).recordIssues(sourceLocation: sourceLocation)
    }

    public static func httpFailures(for loader: some ImageLoader, options: Options = Options()) async -> [ConformanceFailure] {
        let server: TestHTTPServer
        do { server = try TestHTTPServer() } catch {
            return [ConformanceFailure(contract: "loader.server", sample: "127.0.0.1", detail: "the kit's HTTP server did not start: \(error)")]
        }
        defer { server.stop() }
        // Not a valid image of any format: loaders deliver bytes and must not care what they are.
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        server.serveSlowBody("/conformance/body.bin", body, chunks: 10, interval: .milliseconds(20), contentType: "image/png")
        server.serveNeverAnswer("/conformance/never")
        for status in [404, 500, 503] { server.serveStatus("/conformance/status/\(status)", status) }
        let fixture = LoaderFixture(
            url: server.url("/conformance/body.bin"), expectedData: body,
            neverAnsweringURL: server.url("/conformance/never"),
            hasStartedNeverAnsweringLoad: { server.requestCount("/conformance/never") > 0 },
            failingURLs: [404, 500, 503].map { server.url("/conformance/status/\($0)") },
            foreignURLs: [URL(string: "conformance-unknown-scheme://host/a.png")!])
        return await failures(for: loader, fixture: fixture, options: options)
    }

    /// Runs every contract and returns what broke (empty when all hold); for XCTest, assert it is empty.
    public static func failures(for loader: some ImageLoader, fixture: LoaderFixture, options: Options = Options()) async -> [ConformanceFailure] {
        var log = FailureLog()
        let lateEvents = LateEventCounter()
        checkCanLoad(loader, fixture, &log)
        await checkLoadAndProgress(loader, fixture, options, &log)
        await checkCancellation(loader, fixture, options, lateEvents, &log)
        let cancelsEnded = ContinuousClock.now
        await checkErrors(loader, fixture, options, &log)
        await checkConcurrentLoads(loader, fixture, options, &log)
        // Asked last, so that a loader finishing a cancelled load behind the caller's back has had
        // every other contract's time, and at least the window, to show it.
        let deadline = cancelsEnded + options.lateEventWindow
        while lateEvents.value == 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        log.expect(
            lateEvents.value == 0, "loader.cancel.once", "cancelled loads",
            "\(lateEvents.value) progress events arrived after a load had already ended with cancelled: it completed a second time")
        return log.failures
    }

    static func checkCanLoad(_ loader: some ImageLoader, _ fixture: LoaderFixture, _ log: inout FailureLog) {
        let context = ImageContext()
        let answers = (0..<3).map { _ in loader.canLoad(fixture.url, options: [], context: context) }
        log.expect(answers.allSatisfy { $0 }, "loader.canLoad", fixture.url.absoluteString, "canLoad answered \(answers) for the URL it must load")
        for url in fixture.foreignURLs {
            let foreign = (0..<3).map { _ in loader.canLoad(url, options: [], context: context) }
            log.expect(Set(foreign).count == 1, "loader.canLoad", url.absoluteString, "canLoad answered \(foreign) for the same URL")
            log.expect(!foreign.contains(true), "loader.canLoad.foreign", url.absoluteString, "canLoad accepts a URL the loader cannot take")
        }
    }

    static func checkLoadAndProgress(_ loader: some ImageLoader, _ fixture: LoaderFixture, _ options: Options, _ log: inout FailureLog) async {
        let name = fixture.url.absoluteString
        for progressive in [false, true] {
            let events = Mutex<[ImageLoadProgress]>([])
            let loadOptions: ImageOptions = progressive ? [.progressiveLoad] : []
            let outcome = await AsyncTimeBound.run(options.timeLimit) {
                try await loader.load(fixture.url, options: loadOptions, context: ImageContext()) { event in
                    events.withLock { $0.append(event) }
                }.data
            }
            guard case .returned(let data) = outcome else {
                log.fail("loader.load", name, "loading failed: \(outcome)")
                return
            }
            log.expect(data == fixture.expectedData, "loader.load", name, "loaded \(data.count) bytes that differ from the expected \(fixture.expectedData.count)")
            let seen = events.withLock { $0 }
            let total = Int64(fixture.expectedData.count)
            guard let last = seen.last else {
                log.fail("loader.progress", name, "no progress was reported")
                continue
            }
            let received = seen.map(\.receivedBytes)
            log.expect(received == received.sorted(), "loader.progress", name, "received bytes went backwards: \(received)")
            log.expect(last.receivedBytes == total, "loader.progress", name, "the last progress event says \(last.receivedBytes) bytes, the total is \(total)")
            let totals = Set(seen.compactMap(\.expectedBytes))
            log.expect(totals.isSubset(of: [total]), "loader.progress", name, "expected bytes announced as \(totals.sorted()), the total is \(total)")
            log.expect(
                !seen.contains { event in event.expectedBytes.map { event.receivedBytes > $0 } ?? false }, "loader.progress", name,
                "an event reports more bytes received than expected")
            guard progressive else { continue }
            // With .progressiveLoad the partial bytes are what a progressive decoder is fed.
            let wrong = seen.filter { event in
                guard let partial = event.partialData else { return false }
                return Int64(partial.count) != event.receivedBytes || !fixture.expectedData.starts(with: partial)
            }
            log.expect(wrong.isEmpty, "loader.progressiveData", name, "\(wrong.count) events carry partial data that is not the first receivedBytes bytes")
        }
    }

    static func checkCancellation(_ loader: some ImageLoader, _ fixture: LoaderFixture, _ options: Options, _ late: LateEventCounter, _ log: inout FailureLog) async {
        var cases: [(String, URL, (@Sendable () -> Bool)?)] = [("cancelled before it starts", fixture.url, nil)]
        if let never = fixture.neverAnsweringURL { cases.append(("cancelled in flight", never, fixture.hasStartedNeverAnsweringLoad)) }
        for (label, url, hasStarted) in cases {
            let ended = Atomic<Bool>(false)
            let completions = Atomic<Int>(0)
            let preCancel = hasStarted == nil && url == fixture.url
            let task = Task { () -> Result<Data, any Error> in
                if preCancel { withUnsafeCurrentTask { $0?.cancel() } }
                let result: Result<Data, any Error>
                do {
                    result = .success(
                        try await loader.load(url, options: [], context: ImageContext()) { _ in
                            if ended.load(ordering: .acquiring) { late.increment() }
                        }.data)
                } catch { result = .failure(error) }
                ended.store(true, ordering: .releasing)
                completions.add(1, ordering: .relaxed)
                return result
            }
            if !preCancel {
                // Wait (bounded) for the request to leave, so the cancel lands mid-flight.
                let deadline = ContinuousClock.now + options.timeLimit
                while let hasStarted, !hasStarted(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
                task.cancel()
            }
            let outcome = await AsyncTimeBound.run(options.timeLimit) { await task.value }
            guard case .returned(let result) = outcome else {
                log.fail("loader.cancel", "\(url.absoluteString) (\(label))", "the load did not end within \(options.timeLimit) of being cancelled")
                continue
            }
            switch result {
            case .failure(let error as ImagePipeError) where error == .cancelled:
                let blocks = loader.shouldBlockURL(url, error: error, options: [], context: ImageContext())
                log.expect(!blocks, "loader.shouldBlock", "\(url.absoluteString) (\(label))", "a cancelled load would block the URL")
            case .failure(let error):
                log.fail("loader.cancel", "\(url.absoluteString) (\(label))", "ended with \(error), not ImagePipeError.cancelled")
            case .success:
                log.fail("loader.cancel", "\(url.absoluteString) (\(label))", "a cancelled load returned data instead of throwing ImagePipeError.cancelled")
            }
            log.expect(completions.load(ordering: .relaxed) == 1, "loader.cancel.once", "\(url.absoluteString) (\(label))", "ended \(completions.load(ordering: .relaxed)) times")
        }
    }

    static func checkErrors(_ loader: some ImageLoader, _ fixture: LoaderFixture, _ options: Options, _ log: inout FailureLog) async {
        let context = ImageContext()
        let probe = fixture.url
        // A timeout as loaders report it: transient, so no loader may block a URL for it.
        let timedOut = ImagePipeError.LoadFailure(name: "timedOut", code: 3000, isTransient: true)
        let timeout = ImagePipeError.loadFailed(timedOut, status: nil, message: "transfer failed (timedOut): conformance timeout")
        for error in [ImagePipeError.cancelled, timeout] {
            let answers = (0..<2).map { _ in loader.shouldBlockURL(probe, error: error, options: [], context: context) }
            log.expect(!answers.contains(true), "loader.shouldBlock", "\(error)", "a \(error == .cancelled ? "cancel" : "timeout") must never block the URL")
        }
        for url in fixture.failingURLs {
            let outcome = await AsyncTimeBound.run(options.timeLimit) {
                try await loader.load(url, options: [], context: context, progress: nil).data.count
            }
            switch outcome {
            case .returned(let count):
                log.fail("loader.errors", url.absoluteString, "a load that must fail returned \(count) bytes")
            case .timedOut:
                log.fail("loader.errors", url.absoluteString, "a failing load did not end within \(options.timeLimit)")
            case .threw(let error as ImagePipeError):
                let answers = (0..<3).map { _ in loader.shouldBlockURL(url, error: error, options: [], context: context) }
                log.expect(Set(answers).count == 1, "loader.shouldBlock", url.absoluteString, "shouldBlockURL answered \(answers) for the same error (\(error))")
            case .threw(let error):
                log.fail("loader.errors", url.absoluteString, "threw \(type(of: error)), not an ImagePipeError: \(error)")
            }
        }
    }

    static func checkConcurrentLoads(_ loader: some ImageLoader, _ fixture: LoaderFixture, _ options: Options, _ log: inout FailureLog) async {
        let count = options.concurrentLoads
        let outcome = await AsyncTimeBound.run(options.timeLimit * 2) {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        let data = try? await loader.load(fixture.url, options: [], context: ImageContext(), progress: nil).data
                        return data == fixture.expectedData ? 0 : 1
                    }
                }
                return await group.reduce(0, +)
            }
        }
        guard case .returned(let wrong) = outcome else {
            log.fail("loader.concurrency", fixture.url.absoluteString, "\(count) concurrent loads did not all end within \(options.timeLimit * 2)")
            return
        }
        log.expect(wrong == 0, "loader.concurrency", fixture.url.absoluteString, "\(wrong) of \(count) concurrent loads failed or got other bytes")
    }
}

/// Progress events that arrive after their load has ended.
final class LateEventCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
