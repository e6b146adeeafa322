import CodersJPEG
import Foundation
import PipelineCore
import TestSupport
import Testing

@Suite("JPEG hostile input", .dedicatedThreads)
struct JPEGHostileInputTests {
    let coder = JPEGCoder()

    /// A real progressive file from our encoder (libjpeg's 10-scan script) with its last scan
    /// repeated, as the attack does.
    func repeatedScans(_ extra: Int) throws -> Data {
        var options = ImageEncodeOptions()
        options.extras[.jpegProgressive] = true
        let source = try coder.encode(Image(JPEGTestImages.gradient(width: 96, height: 64, format: .rgb8)), as: .jpeg, options: options)
        return HostileImages.repeatingLastScan(of: source, times: extra)
    }

    func expectScanLimit(_ error: ImagePipeError?, maximum: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .limitExceeded(let limit, let value, let max) = error else {
            Issue.record("got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(limit == .progressiveScans, sourceLocation: sourceLocation)
        #expect(value == maximum + 1 && max == maximum, sourceLocation: sourceLocation)
        #expect(error?.description.contains("ImageDecodeOptions.maxProgressiveScans") == true, sourceLocation: sourceLocation)
    }

    @Test("A progressive JPEG repeating its last scan stops at the scan limit, full size and thumbnail")
    func repeatedLastScan() throws {
        let file = try repeatedScans(200)
        for options in [ImageDecodeOptions(), ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 8, height: 8))] {
            expectScanLimit(
                #expect(throws: ImagePipeError.self) { try coder.decode(file, options: options) },
                maximum: ImageDecodeOptions.defaultMaxProgressiveScans)
        }
    }

    @Test("Thousands of tiny end-of-band scans stop at the limit; a file at the limit decodes")
    func endOfBandScans() throws {
        let hostile = HostileImages.progressiveJPEG(width: 512, height: 512, scans: 5000)
        #expect(hostile.count < 200_000)
        expectScanLimit(#expect(throws: ImagePipeError.self) { try coder.decode(hostile, options: ImageDecodeOptions()) }, maximum: 100)

        let atLimit = HostileImages.progressiveJPEG(width: 64, height: 64, scans: 12)
        #expect(try coder.decode(atLimit, options: ImageDecodeOptions(maxProgressiveScans: 12)).pixelSize == ImageSize(width: 64, height: 64))
        expectScanLimit(#expect(throws: ImagePipeError.self) { try coder.decode(atLimit, options: ImageDecodeOptions(maxProgressiveScans: 11)) }, maximum: 11)
    }

    @Test("A progressive load stops showing scans past the limit and fails with the limit")
    func progressiveLoadScanLimit() throws {
        let file = try repeatedScans(200)
        let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        let cut = file.count * 3 / 4
        decoder.update(file.prefix(cut), isComplete: false)
        expectScanLimit(#expect(throws: ImagePipeError.self) { try decoder.currentImage() }, maximum: 100)
        decoder.update(file, isComplete: true)
        expectScanLimit(#expect(throws: ImagePipeError.self) { try decoder.currentImage() }, maximum: 100)
    }

    @Test("A 100-megapixel progressive CMYK JPEG is refused from its header: its coefficients need 800 MB")
    func progressiveCMYKCoefficients() throws {
        let file = HostileImages.cmykJPEG(width: 10_000, height: 10_000, progressive: true, dataBytes: 1024)
        let error = #expect(throws: ImagePipeError.self) { try coder.decode(file, options: ImageDecodeOptions()) }
        // 1,250 x 1,250 blocks x 4 components x 128 bytes, plus row buffers.
        #expect(error == .limitExceeded(.decoderMemory, value: 801_280_000, maximum: ImageDecodeOptions.defaultMaxDecoderMemory))
        #expect(error?.description.contains("ImageDecodeOptions.maxDecoderMemory") == true)
        // Refused from the header, so no estimate for the decode memory budget: the decode's own
        // error is the one the caller sees. Allowed, the coefficients are the working set.
        #expect(coder.decodeEstimate(for: file, options: ImageDecodeOptions()) == nil)
        let estimate = try #require(coder.decodeEstimate(for: file, options: ImageDecodeOptions(maxDecoderMemory: 1 << 30)))
        #expect(estimate.workingBytes == 801_280_000)
        #expect(estimate.bytes == 801_280_000 + 300_000_000)
    }

    @Test("A sequential file whose first scan holds one component hits libjpeg's own memory limit")
    func multiScanSequential() throws {
        // 2,000 x 2,000, four components: libjpeg buffers 4 x 250 x 250 blocks (32 MB) to merge scans.
        let file = HostileImages.cmykJPEG(width: 2000, height: 2000, progressive: false, dataBytes: 1024)
        let error = #expect(throws: ImagePipeError.self) { try coder.decode(file, options: ImageDecodeOptions(maxDecoderMemory: 4 << 20)) }
        guard case .limitExceeded(let limit, let value, let maximum) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(limit == .decoderMemory)
        #expect(maximum == 4 << 20)
        #expect(value > maximum)
    }

    @Test("A cancelled decode stops with cancelled; a spent time budget with decodeTime", arguments: [true, false])
    func cancellationAndDeadline(progressive: Bool) throws {
        var encode = ImageEncodeOptions()
        encode.extras[.jpegProgressive] = progressive
        let file = try coder.encode(Image(JPEGTestImages.gradient(width: 96, height: 64, format: .rgb8)), as: .jpeg, options: encode)
        let cancellation = DecodeCancellation()
        cancellation.cancel()
        let cancelled = #expect(throws: ImagePipeError.self) {
            try DecodeCancellation.$current.withValue(cancellation) { try coder.decode(file, options: ImageDecodeOptions()) }
        }
        #expect(cancelled == .cancelled)
        let late = #expect(throws: ImagePipeError.self) { try coder.decode(file, options: ImageDecodeOptions(maxDecodeTime: .seconds(-1))) }
        guard case .limitExceeded(let limit, _, _) = late else {
            Issue.record("got \(String(describing: late))")
            return
        }
        #expect(limit == .decodeTime)
        #expect(try coder.decode(file, options: ImageDecodeOptions(maxDecodeTime: nil)).pixelSize == ImageSize(width: 96, height: 64))
    }
}
