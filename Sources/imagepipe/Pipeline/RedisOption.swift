import ArgumentParser
import CacheRedis
import Foundation

/// `--redis redis://[:password@]host[:port][/db]`, as `fetch` and `serve` read it: the password
/// may instead come from `IMAGEPIPE_REDIS_PASSWORD`, and an error names what is wrong without
/// echoing the URL, which may hold a password.
enum RedisOption {
    static func configuration(_ url: String?, environment: [String: String]) throws -> RedisCacheConfiguration? {
        guard let url else { return nil }
        do {
            var configuration = try RedisCacheConfiguration(url: url)
            if configuration.password == nil, let password = environment["IMAGEPIPE_REDIS_PASSWORD"], !password.isEmpty {
                configuration.password = password
            }
            return configuration
        } catch {
            throw ValidationError("--redis: \(error)")
        }
    }
}
