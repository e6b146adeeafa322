import Foundation

/// The right to fetch one key for every server sharing the Redis: use it in `withLease`, or hand
/// it back with `release`. Its lock is renewed until then (or until the lease is dropped).
public struct RedisFetchLease: Sendable, Hashable {
    public let key: String
    let token: String
    let renewal: RedisLockRenewal

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key && lhs.token == rhs.token }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(token)
    }
}

/// What a server does after a miss, decided across servers by `claimFetch(forKey:)`.
public enum RedisFetchClaim: Sendable, Hashable {
    /// This server holds the lock: fetch and store inside `withLease`, which renews and releases it.
    case fetch(RedisFetchLease)
    /// Another server stored the entry while this one waited: query again.
    case stored
    /// No answer in time, or Redis is unavailable: fetch without coordination.
    case fetchAlone
}

extension RedisImageCache {
    func lockKey(_ key: String) -> String { configuration.keyPrefix + "lock:" + key }

    /// Single-flight across servers, the cross-process version of the manager's coalescing: the
    /// first caller takes a short lock (`SET lock token NX PX lockTimeToLive`) and fetches; the others
    /// look for the stored entry every `lockPollInterval` for at most `lockMaxWait`, then fetch
    /// themselves. A lock whose holder gave up without storing is taken over by the next waiter.
    /// Each outcome is counted (`RedisCacheStats.fetchesClaimed`, `fetchesWaited`, `fetchesAlone`).
    public func claimFetch(forKey key: String) async -> RedisFetchClaim {
        let claim = await decideFetch(forKey: key)
        switch claim {
        case .fetch: counters.record(.fetchClaimed)
        case .stored: counters.record(.fetchWaited)
        case .fetchAlone: counters.record(.fetchAlone)
        }
        return claim
    }

    private func decideFetch(forKey key: String) async -> RedisFetchClaim {
        let token = UUID().uuidString
        let ttl = String(max(1, Self.milliseconds(configuration.lockTimeToLive)))
        let deadline = ContinuousClock.now + configuration.lockMaxWait
        while true {
            // Renewing starts before the lock is asked for, on a thread of its own, so however late
            // this task resumes, the lock is renewed within a third of its lifetime (the renewal
            // checks the token: before the lock is ours, or if it never is, it changes nothing).
            let renewal = RedisLockRenewal(
                pool: pool, every: .milliseconds(max(1, Self.milliseconds(configuration.lockTimeToLive) / 3)),
                command: RedisCommand(["EVAL", Self.renewScript, "1", lockKey(key), token, ttl]))
            let reply = await pool.run(["SET", lockKey(key), token, "NX", "PX", ttl])
            if reply != .status("OK") { renewal.stop() }
            switch reply {
            case .status("OK")?:
                let lease = RedisFetchLease(key: key, token: token, renewal: renewal)
                // The previous holder may have stored and released between our miss and our lock.
                guard case .integer(0)? = await pool.run(["EXISTS", valueKey(key)]) else {
                    await release(lease)
                    return .stored
                }
                return .fetch(lease)
            case .null?: break
            default: return .fetchAlone
            }
            waiting: while true {
                guard ContinuousClock.now < deadline, !Task.isCancelled else { return .fetchAlone }
                try? await Task.sleep(for: configuration.lockPollInterval)
                guard case .integer(let stored)? = await pool.run(["EXISTS", valueKey(key)]) else { return .fetchAlone }
                if stored > 0 { return .stored }
                guard case .integer(let locked)? = await pool.run(["EXISTS", lockKey(key)]) else { return .fetchAlone }
                if locked == 0 { break waiting }
            }
        }
    }

    /// Runs `work` (the holder's fetch and store) while the lease's lock is kept, then releases it,
    /// also when `work` throws. From the claim on, the lock is renewed every third of
    /// `lockTimeToLive` (`PEXPIRE`, only while it still holds the lease's token, in one Lua `EVAL`),
    /// so a fetch that outlasts the lock's lifetime is not started again by a waiting server, while
    /// the lock of a holder that died still expires after `lockTimeToLive`.
    public func withLease<T, E: Error>(_ lease: RedisFetchLease, _ work: () async throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E>
        do {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        await release(lease)
        return try result.get()
    }

    static let renewScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end
        """

    /// Lets the next server fetch: deletes the lock only while it still holds this lease's token
    /// (a Lua script, so the compare and the delete are one step; a lock that expired and was taken
    /// by another server is left alone).
    public func release(_ lease: RedisFetchLease) async {
        lease.renewal.stop()
        _ = await pool.run(["EVAL", Self.releaseScript, "1", lockKey(lease.key), lease.token])
    }

    static let releaseScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end
        """
}
