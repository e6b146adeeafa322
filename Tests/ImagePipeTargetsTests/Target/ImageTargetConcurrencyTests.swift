import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ImagePipeTargets
@testable import PipelineCore

@Suite("Image targets under concurrency")
struct ImageTargetConcurrencyTests {
    @Test("1,000 concurrent set and cancel calls: every call completes once, no update overlaps, the latest image lands")
    func concurrentSetAndCancel() async throws {
        let f = ManagerFixture(delay: .milliseconds(2))
        let urls = (0..<5).map { URL(string: "test://stress/\($0).timg")! }
        for (offset, url) in urls.enumerated() { f.serve(url.absoluteString, width: 10 + offset, height: 4) }
        let targets = (0..<3).map { _ in RecordingTarget() }
        let slots: [ImageSlot] = [.image, .highlightedImage]
        let log = CompletionLog()
        let setCalls = Counter()
        let context = f.context

        await withTaskGroup(of: Void.self) { group in
            for call in 0..<1_000 {
                group.addTask {
                    let target = targets[call % targets.count]
                    let slot = slots[(call / 3) % slots.count]
                    if call % 4 == 3 {
                        target.cancelCurrentImageLoad(for: slot)
                    } else {
                        setCalls.increment()
                        let url = call % 50 == 0 ? nil : urls[call % urls.count]
                        target.setImage(with: url, placeholder: placeholderImage, slot: slot, context: context, completed: log.handler)
                    }
                }
            }
        }
        try #require(await eventually { log.count == setCalls.count })

        // One last call per slot and target, after the storm, decides what each shows.
        let finalURL = URL(string: "test://stress/final.timg")!
        f.serve(finalURL.absoluteString, width: 99, height: 4)
        let finalLog = CompletionLog()
        for target in targets {
            for slot in slots {
                target.setImage(with: finalURL, slot: slot, context: context, completed: finalLog.handler)
            }
        }
        try #require(await eventually { finalLog.count == targets.count * slots.count })
        #expect(finalLog.all.allSatisfy { $0.width == 99 })
        for target in targets {
            for slot in slots {
                try #require(await eventually { target.widths(in: slot).last == 99 })
            }
            #expect(target.overlaps.count == 0, "a target is never updated from two threads at once")
        }
        // Nothing completes twice: the count stays where it was.
        #expect(log.count == setCalls.count)
    }
}
