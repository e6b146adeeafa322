import CacheRedis
import Testing

@Suite("redis:// URLs are parsed strictly and never print the password")
struct RedisURLTests {
    @Test("Host, port, password and database come from the URL")
    func fullURL() throws {
        let url = try RedisURL(parsing: "redis://:s%40cret@cache.internal:6380/3")
        #expect(url == RedisURL(host: "cache.internal", port: 6380, password: "s@cret", database: 3))
    }

    @Test("Port 6379 and database 0 when left out; IPv6 in brackets")
    func defaults() throws {
        #expect(try RedisURL(parsing: "redis://127.0.0.1") == RedisURL(host: "127.0.0.1", port: 6379, password: nil, database: 0))
        #expect(try RedisURL(parsing: "redis://[::1]:7000/") == RedisURL(host: "::1", port: 7000, password: nil, database: 0))
    }

    @Test(
        "Malformed URLs are refused with a reason that never quotes the password",
        arguments: [
            "http://host:6379", "redis://", "redis://user:hunter2@host", "redis://:hunter2@", "redis://host:0",
            "redis://host:65536", "redis://host:-1", "redis://host/x", "redis://host/99999999", "redis://host?db=1",
            "redis://ho st", "redis://:hunter2%zz@host", "redis://host:6379#frag", "redis://[::1",
        ])
    func refused(text: String) {
        #expect(throws: RedisURL.ParseError.self) { try RedisURL(parsing: text) }
        do {
            _ = try RedisURL(parsing: text)
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test("A configuration's description hides the password")
    func description() throws {
        let configuration = try RedisCacheConfiguration(url: "redis://:hunter2@127.0.0.1:6390/2")
        #expect(configuration.description == "redis://:***@127.0.0.1:6390/2")
    }
}
