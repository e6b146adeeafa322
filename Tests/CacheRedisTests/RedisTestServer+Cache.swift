import Foundation
import TestSupport

@testable import CacheRedis

extension RedisTestServer {
    /// A configuration for this server under a fresh prefix. Its timeouts are long, so a loaded
    /// machine never turns a command into a fault; tests of slow servers set a short one
    /// themselves. The breaker cools down fast, so tests of restarts see the server again soon.
    var configuration: RedisCacheConfiguration {
        var configuration = RedisCacheConfiguration(host: "127.0.0.1", port: Int(port))
        configuration.keyPrefix = "test-\(UUID().uuidString):"
        configuration.breakerCooldown = .milliseconds(100)
        configuration.commandTimeout = .seconds(10)
        configuration.connectTimeout = .seconds(10)
        return configuration
    }

    /// Sends one command on a connection of its own (setup and fault injection).
    @discardableResult
    func command(_ arguments: [String]) throws -> RedisReply {
        try RedisConnection(configuration: configuration).command(arguments)
    }
}
