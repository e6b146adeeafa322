import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipe
@testable import PipelineCore

/// Decodes that together would not fit in memory run in turn; one that alone never fits fails at
/// once; a cancelled waiter holds nothing.
@Suite("Decode memory budget")
struct DecodeMemoryBudgetTests {
    /// Starts a reservation of `bytes` whose body waits for `gate`, and records that it ran.
    static func hold(_ budget: DecodeMemoryBudget, _ bytes: Int, until gate: Gate, ran: Counter = Counter()) -> Task<Void, any Error> {
        Task {
            try await budget.withReservation(of: bytes) {
                ran.increment()
                try await gate.wait()
            }
        }
    }

    @Test("Reservations that together exceed the budget run as many at a time as fit, first come first served")
    func admitsWhatFits() async throws {
        let budget = DecodeMemoryBudget(limitBytes: 100)
        let gates = (0..<5).map { _ in Gate() }
        let ran = (0..<5).map { _ in Counter() }
        var tasks: [Task<Void, any Error>] = []
        for index in 0..<5 {
            tasks.append(Self.hold(budget, 40, until: gates[index], ran: ran[index]))
            // Queue them in a known order.
            try #require(await eventually { ran[index].count == 1 || budget.waitingCount == index - 1 })
        }
        try #require(await eventually { budget.waitingCount == 3 })
        #expect(budget.reservedBytes == 80)
        #expect(ran.map(\.count) == [1, 1, 0, 0, 0])
        gates[0].open()
        try #require(await eventually { ran[2].count == 1 })
        #expect(ran[3].count == 0 && budget.reservedBytes == 80)
        for gate in gates { gate.open() }
        for task in tasks { try await task.value }
        #expect(budget.peakReservedBytes == 80)
        #expect(budget.reservedBytes == 0 && budget.waitingCount == 0)
    }

    @Test("A large reservation waiting at the front is not overtaken by small ones that would fit")
    func noStarvation() async throws {
        let budget = DecodeMemoryBudget(limitBytes: 100)
        let first = Gate(), large = Gate(), small = Gate()
        let firstTask = Self.hold(budget, 60, until: first)
        try #require(await eventually { budget.reservedBytes == 60 })
        let largeRan = Counter(), smallRan = Counter()
        let largeTask = Self.hold(budget, 90, until: large, ran: largeRan)
        try #require(await eventually { budget.waitingCount == 1 })
        let smallTask = Self.hold(budget, 20, until: small, ran: smallRan)
        try #require(await eventually { budget.waitingCount == 2 })
        #expect(smallRan.count == 0, "20 bytes would fit beside the 60, but the 90 came first")
        first.open()
        try #require(await eventually { largeRan.count == 1 })
        #expect(smallRan.count == 0 && budget.reservedBytes == 90)
        large.open()
        small.open()
        for task in [firstTask, largeTask, smallTask] { try await task.value }
        #expect(smallRan.count == 1)
        #expect(budget.peakReservedBytes <= 100)
    }

    @Test("A reservation over the whole budget fails at once with the typed error naming DecodeMemoryBudget.limitBytes")
    func aloneOverBudget() async throws {
        let budget = DecodeMemoryBudget(limitBytes: 100)
        let error = ImagePipeError.limitExceeded(.decodeMemoryBudget, value: 101, maximum: 100)
        await #expect(throws: error) { try await budget.withReservation(of: 101) {} }
        #expect(error.description.contains("raise DecodeMemoryBudget.limitBytes"))
        #expect(budget.reservedBytes == 0 && budget.peakReservedBytes == 0)
        // Nothing estimated holds nothing and never waits.
        try await budget.withReservation(of: 0) { #expect(budget.reservedBytes == 0) }
    }

    @Test("Cancelling a waiting reservation returns cancelled, holds nothing and lets the next in line run")
    func cancelWhileWaiting() async throws {
        let budget = DecodeMemoryBudget(limitBytes: 100)
        let first = Gate()
        let firstTask = Self.hold(budget, 70, until: first)
        try #require(await eventually { budget.reservedBytes == 70 })
        let cancelledRan = Counter()
        let cancelled = Self.hold(budget, 50, until: Gate(), ran: cancelledRan)
        try #require(await eventually { budget.waitingCount == 1 })
        let nextRan = Counter(), next = Gate()
        let nextTask = Self.hold(budget, 20, until: next, ran: nextRan)
        try #require(await eventually { budget.waitingCount == 2 })

        cancelled.cancel()
        await #expect(throws: ImagePipeError.cancelled) { try await cancelled.value }
        #expect(cancelledRan.count == 0)
        // The 20 behind the cancelled 50 fits beside the 70 and is admitted.
        try #require(await eventually { nextRan.count == 1 })
        #expect(budget.reservedBytes == 90 && budget.waitingCount == 0)
        first.open()
        next.open()
        try await firstTask.value
        try await nextTask.value
        #expect(budget.reservedBytes == 0)
    }

    @Test("Lowering the budget fails the waiters that can no longer fit; raising it admits the rest")
    func changingTheLimit() async throws {
        let budget = DecodeMemoryBudget(limitBytes: 100)
        let first = Gate()
        let firstTask = Self.hold(budget, 80, until: first)
        try #require(await eventually { budget.reservedBytes == 80 })
        let big = Self.hold(budget, 90, until: Gate())
        try #require(await eventually { budget.waitingCount == 1 })
        let smallRan = Counter()
        let small = Self.hold(budget, 30, until: Gate(), ran: smallRan)
        try #require(await eventually { budget.waitingCount == 2 })
        budget.limitBytes = 50
        await #expect(throws: ImagePipeError.limitExceeded(.decodeMemoryBudget, value: 90, maximum: 50)) { try await big.value }
        #expect(budget.waitingCount == 1 && smallRan.count == 0)
        budget.limitBytes = 200
        try #require(await eventually { smallRan.count == 1 })
        small.cancel()
        first.open()
        try await firstTask.value
        _ = try? await small.value
        #expect(budget.reservedBytes == 0)
    }

    @Test("Eight simultaneous decodes through the coders manager never hold more than the budget together")
    func concurrentDecodes() async throws {
        let budget = DecodeMemoryBudget(limitBytes: 15_000)
        let coder = EstimatingCoder()
        let coders = ImageCodersManager(coders: [coder], decodeMemoryBudget: budget)
        let data = TestCoder.sample(width: 50, height: 20)
        let queue = CPUWorkQueue(limit: 8)
        try await withThrowingTaskGroup(of: ImageSize.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await coders.decodeImage(data, options: ImageDecodeOptions()) { work in
                        try await queue.run(work)
                    }.pixelSize
                }
            }
            for try await size in group { #expect(size == ImageSize(width: 50, height: 20)) }
        }
        // Each decode estimates 50 x 20 x 4 bytes plus 1000 working: three fit at once, never four.
        #expect(coder.highestConcurrency.withLock { $0 } <= 3)
        #expect(budget.peakReservedBytes <= budget.limitBytes)
        #expect(budget.peakReservedBytes >= 5000)
        #expect(budget.reservedBytes == 0)
    }

    @Test("A decode whose estimate alone is over the budget fails before the coder decodes")
    func decodeAloneOverBudget() async throws {
        let coder = EstimatingCoder()
        let coders = ImageCodersManager(coders: [coder], decodeMemoryBudget: DecodeMemoryBudget(limitBytes: 4999))
        await #expect(throws: ImagePipeError.limitExceeded(.decodeMemoryBudget, value: 5000, maximum: 4999)) {
            try await coders.decodeImage(TestCoder.sample(width: 50, height: 20), options: ImageDecodeOptions()) { work in
                try work()
            }
        }
        #expect(coder.decodes.count == 0)
    }

    @Test("The manager decodes within its coders' budget: a download whose decode alone exceeds it fails with the typed error")
    func managerUsesBudget() async throws {
        let budget = DecodeMemoryBudget(limitBytes: 4999)
        let coders = ImageCodersManager(coders: [EstimatingCoder()], decodeMemoryBudget: budget)
        let loader = TestLoader.scripted(delay: .milliseconds(1))
        let manager = ImageManager(cache: InMemoryImageCache(coders: coders), loader: loader, coders: coders)
        let url = URL(string: "test://img/wide.timg")!
        loader.answer(url.absoluteString, with: .data(TestCoder.sample(width: 50, height: 20)))
        await #expect(throws: ImagePipeError.limitExceeded(.decodeMemoryBudget, value: 5000, maximum: 4999)) {
            try await manager.loadImage(with: url)
        }
        // A thumbnail's estimate is smaller and fits.
        var context = ImageContext()
        context[.thumbnailPixelSize] = ImageSize(width: 25, height: 25)
        let thumbnail = try await manager.loadImage(with: url, options: [.retryFailed], context: context)
        #expect(thumbnail.image?.pixelSize == ImageSize(width: 25, height: 10))
        #expect(budget.peakReservedBytes == 25 * 10 * 4 + 1000)
    }

    @Test("Estimates: the output at the thumbnail size plus working bytes; an overflowing one is Int.max")
    func estimates() {
        let thumbnail = ImageDecodeOptions(thumbnailPixelSize: ImageSize(width: 100, height: 100))
        let estimate = ImageDecodeEstimate(headerSize: ImageSize(width: 4000, height: 2000), options: thumbnail, workingBytes: 77)
        #expect(estimate.outputSize == ImageSize(width: 100, height: 50))
        #expect(estimate.bytes == 100 * 50 * 4 + 77)
        #expect(ImageDecodeEstimate(outputSize: ImageSize(width: .max, height: 2)).bytes == .max)
        #expect(ImageDecodeEstimate(outputSize: ImageSize(width: 1 << 31, height: 1 << 31)).bytes == .max)
        #expect(ImageDecodeEstimate(outputSize: ImageSize(width: 10, height: 10), workingBytes: .max).bytes == .max)
        #expect(DecodeMemoryBudget.defaultLimitBytes > 0)
    }
}

/// The test format's coder, with an estimate read from the header (4 bytes a pixel plus 1000
/// working bytes) and a count of how many of its decodes ran at once.
final class EstimatingCoder: ImageCoder {
    let base = TestCoder()
    let decodes = Counter()
    private let running = Mutex(0)
    let highestConcurrency = Mutex(0)

    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }

    func decodeEstimate(for data: Data, options: ImageDecodeOptions) -> ImageDecodeEstimate? {
        guard data.count >= 9 else { return nil }
        let size = ImageSize(width: Int(data[4]) << 8 | Int(data[5]), height: Int(data[6]) << 8 | Int(data[7]))
        return ImageDecodeEstimate(headerSize: size, options: options, workingBytes: 1000)
    }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        decodes.increment()
        let now = running.withLock {
            $0 += 1
            return $0
        }
        highestConcurrency.withLock { $0 = max($0, now) }
        defer { running.withLock { $0 -= 1 } }
        // Long enough for the other decodes to be started and queued.
        usleep(5000)
        return try base.decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImagePipeError.encodingFailed(reason: "test coder")
    }
}
