import NIOCore
import NIOEmbedded
import Testing

@testable import ImageServer

@Suite("ClientDisconnect: a connection's signal, found without its event loop")
struct ClientDisconnectTests {
    @Test("a connection's signal is found while it is open; closing fires it and forgets the connection")
    func registryFollowsConnection() throws {
        let registry = ClientDisconnects()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(DisconnectHandler(registry: registry))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let disconnect = try #require(registry.of(channel))
        let fired = OnceFlag()
        _ = disconnect.watch { fired.set() }
        #expect(!fired.isSet)
        _ = try channel.finish()
        #expect(fired.isSet)
        #expect(registry.of(channel) == nil)
        #expect(registry.count == 0)
    }
}
