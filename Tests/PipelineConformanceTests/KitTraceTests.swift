import Foundation
import Logging
import PipelineConformance
import PipelineCore
import Synchronization
import TestSupport
import Testing

@Suite("Conformance kit: a crash is traceable, failures read well")
struct KitTraceTests {
    let sample: CoderSample

    init() throws {
        sample = CoderSample(name: "12x8.rawi", data: try RawCoder.sample(), format: RawCoder.format, size: ImageSize(width: 12, height: 8))
    }

    @Test("Before each damaged copy is decoded, the last line logged names its contract and the sample")
    func namesEachHostileDecode() async throws {
        let log = LogCapture()
        let coder = LastLineRecordingCoder(log: log, sample: sample.data)
        var options = CoderConformance.Options()
        options.logger = log.logger
        options.truncations = 3
        options.corruptions = 4
        _ = await CoderConformance.failures(for: coder, samples: [sample], options: options)
        // What a crash on each hostile input would have left as the last line.
        let lastLines = coder.lastLinesAtHostileDecodes
        #expect(lastLines.count >= 7)
        for line in lastLines {
            #expect(line.contains("'12x8.rawi'"), "\(line)")
            #expect(["decode.truncated", "decode.corrupt", "decode.limits"].contains { line.hasPrefix($0) }, "\(line)")
        }
        #expect(lastLines.contains { $0.hasPrefix("decode.corrupt on '12x8.rawi': copy 7 of 7") })
        // At the default level (info) a crash still leaves the sample and the batch's contracts.
        #expect(log.entries.contains { $0.level == .info && $0.message.contains("decode.truncated and decode.corrupt on '12x8.rawi'") })
    }

    @Test("The default logger writes to standard error at info, so the per-copy lines stay off unless asked")
    func defaultLogger() {
        #expect(CoderConformance.Options().logger.logLevel == .info)
        #expect(CoderConformance.Options().logger.handler is StreamLogHandler)
    }

    @Test("Failure details are sentences: what happened and what was expected, no Swift enum or optional dumps")
    func readableDetails() async throws {
        var options = CoderConformance.Options()
        options.logger = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }
        let limitless = await CoderConformance.failures(for: LimitlessCoder(), samples: [sample], options: options)
        let limits = try #require(limitless.first { $0.contract == "decode.limits" })
        #expect(limits.detail == "with maxPixels 95 the 12x8 canvas must fail with limitExceeded(.pixels) before decoding; it decoded a 12x8 image")
        var cacheOptions = CacheConformance.Options()
        cacheOptions.cacheTypes = [.memory]
        let stale = await CacheConformance.failures(for: StaleCache(), options: cacheOptions)
        let replace = try #require(stale.first { $0.contract == "cache.replace" })
        #expect(replace.detail.hasPrefix("after two stores under one key the query answered an image 3 wide; expected the second, 7 wide"), "\(replace.detail)")
        for failure in limitless + stale {
            for dump in ["Optional(", "returned(", "threw(", "timedOut"] {
                #expect(!failure.description.contains(dump), "\(failure)")
            }
        }
    }
}

/// A correct coder that, on every input other than its sample, notes the last line the kit logged
/// — the line a crash there would have left behind.
final class LastLineRecordingCoder: ImageCoder {
    let log: LogCapture
    let sample: Data
    private let lines = Mutex<[String]>([])

    init(log: LogCapture, sample: Data) {
        self.log = log
        self.sample = sample
    }

    var lastLinesAtHostileDecodes: [String] { lines.withLock { $0 } }

    func canDecode(_ data: Data) -> Bool { RawCoder().canDecode(data) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        if data != sample || options.maxPixels < 96 {
            let last = log.entries.last?.message ?? "(nothing logged)"
            lines.withLock { $0.append(last) }
        }
        return try RawCoder().decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { RawCoder().canEncode(to: format) }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        try RawCoder().encode(image, as: format, options: options)
    }
}
