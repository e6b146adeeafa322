import Foundation
import PipelineConformance
import PipelineCore
import Testing

@Suite("Conformance kit finds broken loaders")
struct KitLoaderSelfTests {
    func fixture() -> LoaderFixture {
        let values = InMemoryLoader.fixture()
        return LoaderFixture(
            url: InMemoryLoader.image, expectedData: InMemoryLoader.bytes, neverAnsweringURL: InMemoryLoader.never,
            failingURLs: values.failing, foreignURLs: values.foreign)
    }

    func options() -> LoaderConformance.Options {
        var options = LoaderConformance.Options()
        // Long enough for a loaded machine to end a correct cancel; short enough for a hang to fail fast.
        options.timeLimit = .seconds(3)
        return options
    }

    @Test("A correct loader passes every loader contract")
    func correctLoader() async {
        let failures = await LoaderConformance.failures(for: InMemoryLoader.make(), fixture: fixture(), options: options())
        #expect(failures == [], "\(failures)")
    }

    @Test("A loader that reports again after ending with cancelled fails loader.cancel.once")
    func completesTwice() async {
        var options = options()
        // Listening stops at the first late event, so a long window costs nothing here and keeps a
        // loaded machine from hiding the double's second report.
        options.lateEventWindow = .seconds(30)
        let failures = await LoaderConformance.failures(for: CompletesTwiceOnCancelLoader(), fixture: fixture(), options: options)
        #expect(failures.map(\.contract).contains("loader.cancel.once"), "\(failures)")
    }

    @Test("A loader that never ends a cancelled load fails loader.cancel within the time limit")
    func neverCompletes() async {
        var options = options()
        // Its slow load must run to its end (and return data) within the limit after the cancel,
        // which a loaded machine can stretch; the limit is waited out once, for the hung load.
        options.timeLimit = .seconds(15)
        let failures = await LoaderConformance.failures(for: NeverCompletesOnCancelLoader(), fixture: fixture(), options: options)
        let cancel = failures.filter { $0.contract == "loader.cancel" }
        #expect(cancel.contains { $0.detail.contains("did not end") }, "\(failures)")
        #expect(cancel.contains { $0.detail.contains("returned data") }, "\(failures)")
    }

    @Test("A loader that blocks cancelled URLs fails loader.shouldBlock")
    func blocksCancelled() async {
        let failures = await LoaderConformance.failures(for: BlocksCancelledLoader(), fixture: fixture(), options: options())
        #expect(failures.map(\.contract).contains("loader.shouldBlock"), "\(failures)")
    }

}
