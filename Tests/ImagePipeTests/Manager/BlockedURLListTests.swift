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
        list.insert(a)
        list.insert(a)
        list.insert(b)
        #expect(list.contains(a) && list.contains(b) && list.count == 2)
        list.remove(a)
        #expect(!list.contains(a) && list.contains(b) && list.count == 1)
        list.removeAll()
        #expect(!list.contains(b) && list.count == 0)
        list.insert(b)
        #expect(list.contains(b))
    }

    @Test("A URL blocked on one thread is blocked for a check that starts on another after it")
    func blockSeenAcrossThreads() async {
        let list = BlockedURLList()
        for round in 0..<200 {
            let url = URL(string: "https://example.com/\(round).png")!
            // The insert happens before the task starts; the check runs wherever the pool puts it.
            list.insert(url)
            let seen = await Task.detached { list.contains(url) }.value
            #expect(seen)
            list.removeAll()
        }
    }
}
