import NIOCore
import Synchronization

/// Tells the work for a connection's request that its client has gone. HTTP/1.1 clients do not
/// half-close, so end of input (or the connection closing) means nobody is waiting for the answer.
final class ClientDisconnect: Sendable {
    private struct State {
        var disconnected = false
        var watchers: [UInt64: @Sendable () -> Void] = [:]
        var nextToken: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Calls `onDisconnect` when the client goes (at once if it has). Returns a token for `unwatch`.
    func watch(_ onDisconnect: @escaping @Sendable () -> Void) -> UInt64 {
        let (token, gone) = state.withLock { state -> (UInt64, Bool) in
            state.nextToken += 1
            if !state.disconnected { state.watchers[state.nextToken] = onDisconnect }
            return (state.nextToken, state.disconnected)
        }
        if gone { onDisconnect() }
        return token
    }

    func unwatch(_ token: UInt64) {
        _ = state.withLock { $0.watchers.removeValue(forKey: token) }
    }

    func disconnected() {
        let watchers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.disconnected else { return [] }
            state.disconnected = true
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        watchers.forEach { $0() }
    }
}

/// The open connections' `ClientDisconnect`s by channel, so a request finds its connection's from
/// any thread with one lock, without a trip to the channel's event loop.
final class ClientDisconnects: Sendable {
    private let byChannel = Mutex<[ObjectIdentifier: ClientDisconnect]>([:])

    /// The connection's `ClientDisconnect`, while its pipeline has a `DisconnectHandler` of this registry.
    func of(_ channel: any Channel) -> ClientDisconnect? {
        byChannel.withLock { $0[ObjectIdentifier(channel)] }
    }

    /// Connections open: registered and not yet closed.
    var count: Int { byChannel.withLock { $0.count } }

    fileprivate func register(_ disconnect: ClientDisconnect, for channel: any Channel) {
        byChannel.withLock { $0[ObjectIdentifier(channel)] = disconnect }
    }

    /// A channel is removed when it closes, while its object is alive: its identifier is not
    /// reused until then.
    fileprivate func remove(_ channel: any Channel) {
        _ = byChannel.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// Watches a connection for end of input or closing, and reports it to its `ClientDisconnect`.
final class DisconnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let disconnect = ClientDisconnect()
    private let registry: ClientDisconnects

    init(registry: ClientDisconnects) {
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        registry.register(disconnect, for: context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        registry.remove(context.channel)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { disconnect.disconnected() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disconnect.disconnected()
        registry.remove(context.channel)
        context.fireChannelInactive()
    }
}
