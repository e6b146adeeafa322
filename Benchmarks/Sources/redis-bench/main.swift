import CacheRedis
import Foundation
import ImageServer
import Logging
import PipelineCore

// Two jobs for Benchmarks/scripts/redis-lookups.sh, each against a redis-server the script runs:
//
//   redis-bench lookups PORT PAYLOAD_BYTES CONCURRENCY CONNECTIONS SECONDS
//       stores one entry of PAYLOAD_BYTES image bytes under bench:img:k (the script reads the
//       value's whole length with STRLEN for redis-benchmark's -d), then CONCURRENCY tasks look it up
//       through RedisImageCache.entry(forKey:) (pipelined GET, header check) for SECONDS; prints
//       "lookups/s N hits H misses M".
//   redis-bench serve REDIS_PORT LOCAL_ROOT
//       an ImageServer on a free loopback port, unsigned URLs, no local caches (every request
//       fetches and processes), http(s) sources through RedisSharedLoader, local:/// sources
//       from LOCAL_ROOT; prints "listening on http://HOST:PORT" and serves until SIGTERM.

let arguments = CommandLine.arguments
func usage() -> Never {
    FileHandle.standardError.write(Data("usage: redis-bench lookups PORT PAYLOAD_BYTES CONCURRENCY CONNECTIONS SECONDS | serve REDIS_PORT LOCAL_ROOT\n".utf8))
    exit(2)
}
guard arguments.count >= 2 else { usage() }

switch arguments[1] {
case "lookups":
    guard arguments.count == 7, let port = Int(arguments[2]), let payloadBytes = Int(arguments[3]),
        let concurrency = Int(arguments[4]), let connections = Int(arguments[5]), let seconds = Double(arguments[6])
    else { usage() }
    try await lookups(port: port, payloadBytes: payloadBytes, concurrency: concurrency, connections: connections, seconds: seconds)
case "serve":
    guard arguments.count == 4, let redisPort = Int(arguments[2]) else { usage() }
    try await serve(redisPort: redisPort, localRoot: arguments[3])
default:
    usage()
}

func lookups(port: Int, payloadBytes: Int, concurrency: Int, connections: Int, seconds: Double) async throws {
    var configuration = RedisCacheConfiguration(port: port)
    configuration.connections = connections
    configuration.keyPrefix = "bench:"
    // Generous: the machine is shared, and a timeout would turn a slow moment into misses.
    configuration.commandTimeout = .seconds(5)
    let cache = RedisImageCache(configuration: configuration)
    let format = "public.png"
    let payload = Data((0..<max(1, payloadBytes)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let entry = RedisCacheEntry(data: payload, formatIdentifier: format)
    await cache.setEntry(entry, forKey: "k")
    guard await cache.entry(forKey: "k") == entry else {
        FileHandle.standardError.write(Data("redis-bench: the entry did not round-trip\n".utf8))
        exit(1)
    }
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    let start = ContinuousClock.now
    let (hits, misses) = await withTaskGroup(of: (Int, Int).self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var hits = 0, misses = 0
                while ContinuousClock.now < deadline {
                    for _ in 0..<64 {
                        if await cache.entry(forKey: "k") != nil { hits += 1 } else { misses += 1 }
                    }
                }
                return (hits, misses)
            }
        }
        return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
    }
    let elapsed = ContinuousClock.now - start
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("lookups/s \(Int(Double(hits + misses) / wall)) hits \(hits) misses \(misses)")
}

func serve(redisPort: Int, localRoot: String) async throws {
    var configuration = ImageServerConfiguration()
    configuration.port = 0
    configuration.allowsUnsigned = true
    configuration.allowsPrivateSources = true
    configuration.memoryLimit = 0
    configuration.localRoot = URL(fileURLWithPath: localRoot).standardizedFileURL.path
    var settings = RedisCacheConfiguration(port: redisPort)
    // A lookup slower than this would be fetched from the origin, which the script has stopped.
    settings.commandTimeout = .seconds(2)
    let redis = settings
    configuration.sharedSources = { origin, factory in
        RedisSharedLoader(origin: origin, cache: RedisImageCache(configuration: redis, metrics: RedisCacheMetrics(factory: factory)))
    }
    var logger = Logger(label: "redis-bench")
    logger.logLevel = .warning
    try await ImageServer(configuration: configuration, logger: logger).run { address in
        FileHandle.standardOutput.write(Data("listening on http://\(address)\n".utf8))
    }
}
