import ArgumentParser
import CacheRedis
import Foundation

/// `--redis redis://[:password@]host[:port][/db]` and `--redis-lock-wait SECONDS`, as `fetch` and
/// `serve` read them: the password may instead come from `IMAGEPIPE_REDIS_PASSWORD`, the wait from
/// `IMAGEPIPE_REDIS_LOCK_WAIT`, and an error names what is wrong without echoing the URL, which
/// may hold a password.
package enum RedisOption {
    /// Seconds a miss may wait for another process's fetch of the same source.
    package static let lockWaitRange = 0...3600

    package static func configuration(_ url: String?, lockWait: Int?, environment: [String: String]) throws -> RedisCacheConfiguration? {
        let env = EnvironmentOptions(environment)
        guard let url else {
            if lockWait != nil { throw ValidationError("--redis-lock-wait needs --redis") }
            return nil
        }
        var configuration: RedisCacheConfiguration
        do {
            configuration = try RedisCacheConfiguration(url: url)
        } catch {
            throw ValidationError("--redis: \(error)")
        }
        if configuration.password == nil, let password = env.string("REDIS_PASSWORD") {
            configuration.password = password
        }
        let fromEnvironment = try env.int("REDIS_LOCK_WAIT")
        if let seconds = lockWait ?? fromEnvironment {
            guard lockWaitRange.contains(seconds) else {
                throw ValidationError("--redis-lock-wait must be a whole number from \(lockWaitRange.lowerBound) to \(lockWaitRange.upperBound)")
            }
            // The lock's own lifetime stays short: its holder renews it while fetching, and a
            // holder that died frees the waiters after `lockTimeToLive`, not after the whole wait.
            configuration.lockMaxWait = .seconds(seconds)
        }
        return configuration
    }
}
