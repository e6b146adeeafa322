import Foundation
import Testing

@testable import imagepipe

@Suite("fetch start order")
struct FetchOrderTests {
    let temp = TempFolder()

    func file(_ name: String, bytes: Int) throws -> String {
        let path = temp.path(name)
        try Data(count: bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("Several workers start URLs first, then local files largest first, ties in the order given")
    func largestFirst() throws {
        let small = try file("small.jpg", bytes: 10), large = try file("large.jpg", bytes: 3_000)
        let middle = try file("middle.jpg", bytes: 500), twin = try file("twin.jpg", bytes: 500)
        let sources = [small, "https://example.test/a.jpg", middle, "file://" + large, twin, temp.path("missing.jpg")]
        #expect(FetchOrder.indices(of: sources, concurrency: 2) == [1, 5, 3, 2, 4, 0])
    }

    @Test("One worker, or no more sources than workers, keeps the order given")
    func orderKept() throws {
        let sources = [try file("a.jpg", bytes: 1), try file("b.jpg", bytes: 2_000), try file("c.jpg", bytes: 30)]
        #expect(FetchOrder.indices(of: sources, concurrency: 1) == [0, 1, 2])
        #expect(FetchOrder.indices(of: sources, concurrency: 3) == [0, 1, 2])
        #expect(FetchOrder.indices(of: sources, concurrency: 2) == [1, 2, 0])
    }
}
