import Crypto
import Foundation

/// The renderer in a fleet (`ImageServerConfiguration.sharedResults`): purge generations folded
/// into every key, results looked up in and stored to the fleet's tier, renders once across servers.
extension ImageRenderer {
    /// `job` with its source's purge generation and whether its result is shared: a file's stays
    /// local, as its source does. While the tier cannot be asked, the generation is a token of the
    /// outage, so results made meanwhile never stand for results of a later one (a purge may
    /// have come between).
    func withPurgeGeneration(_ job: Job) async -> Job {
        guard let shared else { return job }
        var job = job
        if let generation = await shared.purgeGeneration(of: job.source) {
            sharedOutages.reached()
            job.generation = generation
            job.sharesResult = !job.source.isFileURL
        } else {
            job.generation = "offline\(sharedOutages.missed())"
        }
        return job
    }

    /// `job`'s result from the fleet's tier, else rendered here by the one server that claims it
    /// (the others wait for its result) and stored for the others; one too large to share is
    /// rendered by each server at once.
    func renderInFleet(
        _ job: Job, key: String, shared: any SharedResultStore, admission: WorkLimiter.Admission
    ) async throws(ServiceError) -> (RenderedImage, Tier) {
        let sharedKey = Self.sharedKey(key)
        switch await sharedResult(sharedKey, key: key, from: shared) {
        case .hit(let rendered): return (rendered, .shared)
        case .localOnly: return try await renderHere(job, key: key, admission: admission)
        case .miss: break
        }
        let made = try await shared.renderOnce(forKey: sharedKey) { () async throws(ServiceError) -> (RenderedImage, Tier) in
            let made = try await renderHere(job, key: key, admission: admission)
            await shared.store(made.0.shared, forKey: sharedKey)
            return made
        }
        if let made { return made }
        // Another server stored it while this one waited; gone again (evicted), it is made here.
        if case .hit(let rendered) = await sharedResult(sharedKey, key: key, from: shared) { return (rendered, .shared) }
        return try await renderHere(job, key: key, admission: admission)
    }

    /// What the fleet's tier holds under `sharedKey`, a hit kept in memory under `key`.
    private func sharedResult(_ sharedKey: String, key: String, from shared: any SharedResultStore) async -> SharedTierAnswer {
        switch await shared.result(forKey: sharedKey) {
        case .hit(let result):
            guard let rendered = RenderedImage(shared: result, formats: formats.named) else { return .miss }
            memoryOutputs?.set(rendered, forKey: key, cost: rendered.memoryCost(forKey: key))
            return .hit(rendered)
        case .localOnly: return .localOnly
        case .miss: return .miss
        }
    }

    private enum SharedTierAnswer {
        case hit(RenderedImage)
        case localOnly, miss
    }

    /// The fleet tier's key of a result: a digest, as output keys can be kilobytes long.
    static func sharedKey(_ key: String) -> String {
        Data(SHA256.hash(data: Data(key.utf8))).base64URLEncodedWithoutPadding
    }
}
