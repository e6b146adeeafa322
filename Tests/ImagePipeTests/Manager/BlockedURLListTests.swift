import Foundation
import Testing

@testable import ImagePipe
@testable import PipelineCore

@Suite("Blocked URL list")
struct BlockedURLListTests {
    let a = URL(string: "https://example.com/a.png")!
    let b = URL(string: "https://example.com/b.png")!

    @Test("Inserting, removing and clearing show at once in contains and count")
    func changesShowAtOnce() {
        let list = BlockedURLList()
        #expect(!list.contains(a) && list.count == 0)
        list.insert(a, lifetime: .seconds(600), capacity: 10)
        list.insert(a, lifetime: .seconds(600), capacity: 10)
        list.insert(b, lifetime: .seconds(600), capacity: 10)
        #expect(list.contains(a) && list.contains(b) && list.count == 2)
        list.remove(a)
        #expect(!list.contains(a) && list.contains(b) && list.count == 1)
        list.removeAll()
        #expect(!list.contains(b) && list.count == 0)
        list.insert(b, lifetime: .seconds(600), capacity: 10)
        #expect(list.contains(b))
    }

    @Test("A URL blocked on one thread is blocked for a check that starts on another after it")
    func blockSeenAcrossThreads() async {
        let list = BlockedURLList()
        for round in 0..<200 {
            let url = URL(string: "https://example.com/\(round).png")!
            // The insert happens before the task starts; the check runs wherever the pool puts it.
            list.insert(url, lifetime: .seconds(600), capacity: 10)
            let seen = await Task.detached { list.contains(url) }.value
            #expect(seen)
            list.removeAll()
        }
    }

    @Test("An entry expires after its lifetime; past the capacity the one closest to expiring goes")
    func expiryAndBound() {
        let list = BlockedURLList()
        let start = ContinuousClock.now
        list.insert(a, lifetime: .seconds(60), capacity: 2, now: start)
        #expect(list.contains(a, now: start + .seconds(59)))
        #expect(!list.contains(a, now: start + .seconds(60)))
        #expect(list.count == 0, "an expired entry found by contains is dropped")
        let urls = (0..<3).map { URL(string: "https://example.com/\($0).png")! }
        for (index, url) in urls.enumerated() { list.insert(url, lifetime: .seconds(60), capacity: 2, now: start + .seconds(index)) }
        #expect(list.count == 2)
        #expect(!list.contains(urls[0], now: start) && list.contains(urls[1], now: start) && list.contains(urls[2], now: start))
    }
}
