import Foundation
import PipelineCore
import Synchronization
import TestSupport
import Testing

@testable import CodersSVG

#if canImport(Glibc)
import Glibc
#endif

/// Large drawings in bands of rows: the same pixels as one drawing, and a drawing that stops
/// between bands when its request is cancelled or `maxRenderDuration` is spent.
@Suite(.dedicatedThreads, .serialized)
struct SVGBandsTests {
    /// `SVGFixtures.shapes` drawn at `width` x `height`.
    static func enlargedShapes(width: Int, height: Int) -> String {
        SVGFixtures.shapes.document.replacingOccurrences(of: #"width="64" height="40""#, with: #"width="\#(width)" height="\#(height)""#)
    }

    @Test("a drawing over 4 megapixels is cut into bands of about 2 megapixels; smaller ones are drawn whole")
    func bandRows() {
        let plain = Data(Self.enlargedShapes(width: 10, height: 10).utf8)
        #expect(SVGBands.rowsPerBand(for: ImageSize(width: 2048, height: 2048), document: plain) == 2048)
        #expect(SVGBands.rowsPerBand(for: ImageSize(width: 4000, height: 3000), document: plain) == 524)
        #expect(SVGBands.rowsPerBand(for: ImageSize(width: 30000, height: 3000), document: plain) == 69)
        #expect(SVGBands.rowsPerBand(for: ImageSize(width: 32767, height: 32767), document: plain) == 64)
    }

    @Test(
        "documents with filters, masks, group opacity or blend modes are drawn whole: librsvg would redraw their whole canvas per band",
        arguments: [
            (#"<g filter="url(#f)">"#, true), (#"<rect mask="url(#m)"/>"#, true), (#"<g opacity="0.5">"#, true),
            (#"<g style="opacity:.5">"#, true), (#"<g style="mix-blend-mode:multiply">"#, true), (#"<g style="isolation:isolate">"#, true),
            (#"<rect fill-opacity="0.5" stroke-opacity="0.2"/>"#, false), (#"<stop stop-opacity="0"/>"#, false), (#"<rect clip-path="url(#c)"/>"#, false),
        ])
    func wholeCanvasFeatures(markup: String, drawnWhole: Bool) {
        let document = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="9000" height="9000">\#(markup)</svg>"#.utf8)
        #expect(SVGBands.drawsOverWholeCanvas(document) == drawnWhole)
        #expect((SVGBands.rowsPerBand(for: ImageSize(width: 9000, height: 9000), document: document) == 9000) == drawnWhole)
    }

    @Test("a drawing in bands has rsvg-convert's pixels: no seams", .enabled(if: SVGFixtures.toolInstalled, SVGFixtures.missingTool))
    func bandsHaveNoSeams() throws {
        let sample = SVGFixtures.Sample(name: "shapes-2600.svg", document: Self.enlargedShapes(width: 2600, height: 1700), width: 2600, height: 1700)
        #expect(SVGBands.rowsPerBand(for: sample.size, document: sample.data) < sample.height)
        let image = try SVGCoder().decode(sample.data, options: ImageDecodeOptions())
        #expect(image.pixelSize == sample.size)
        let reference = try SVGFixtures.reference(sample)
        #expect(maxChannelDifference(image.firstFrame.bytes, reference.rgba) <= SVGDecoderTests.tolerance)
    }

    /// 49 megapixels of shapes: about a second or more to draw, in 24 bands.
    static let large = Data(enlargedShapes(width: 7000, height: 7000).utf8)

    @Test("a drawing past maxRenderDuration stops at the next band, with an error naming the setting")
    func renderDurationLimit() throws {
        let coder = SVGCoder(maxRenderDuration: .milliseconds(30))
        let thread = Self.currentThreadClock()
        let start = Self.cpuTime(thread)
        do {
            _ = try coder.decode(Self.large, options: ImageDecodeOptions())
            Issue.record("a 49 MP drawing finished within 30 ms")
        } catch let ImagePipeError.limitExceeded(limit, value, maximum) {
            #expect(limit == .svgRenderDuration && value >= 30 && maximum == 30)
            #expect("\(ImagePipeError.limitExceeded(limit, value: value, maximum: maximum))".contains("SVGCoder.maxRenderDuration"))
        }
        let stopped = Self.cpuTime(thread) - start
        let before = Self.cpuTime(thread)
        _ = try SVGCoder(maxRenderDuration: nil).decode(Self.large, options: ImageDecodeOptions())
        let whole = Self.cpuTime(thread) - before
        #expect(stopped < whole / 2, "stopped after \(stopped) of CPU; the whole drawing takes \(whole)")
    }

    @Test("a cancelled drawing stops at the next band")
    func cancellation() throws {
        let drawingThread = Self.currentThreadClock()
        let before = Self.cpuTime(drawingThread)
        _ = try SVGCoder().decode(Self.large, options: ImageDecodeOptions())
        let whole = Self.cpuTime(drawingThread) - before
        let cancellation = DecodeCancellation()
        let cancelledAt = Mutex<Duration?>(nil)
        let canceller = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            cancelledAt.withLock { $0 = Self.cpuTime(drawingThread) }
            cancellation.cancel()
        }
        canceller.start()
        #expect(throws: ImagePipeError.cancelled) {
            try DecodeCancellation.$current.withValue(cancellation) { _ = try SVGCoder().decode(Self.large, options: ImageDecodeOptions()) }
        }
        let after = Self.cpuTime(drawingThread) - (cancelledAt.withLock { $0 } ?? Self.cpuTime(drawingThread))
        #expect(after < whole / 4, "stopped \(after) of CPU after the cancel; the whole drawing takes \(whole)")
    }

    /// This thread's CPU clock. The drawings are timed in CPU time, not the clock's: in a full
    /// test run other suites take the cores in turns, and a drawing's wall time then says more
    /// about them than about it.
    private static func currentThreadClock() -> clockid_t {
        var clock = clockid_t()
        pthread_getcpuclockid(pthread_self(), &clock)
        return clock
    }

    /// The CPU time `clock` (a thread's) has used.
    private static func cpuTime(_ clock: clockid_t) -> Duration {
        var now = timespec()
        clock_gettime(clock, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}
