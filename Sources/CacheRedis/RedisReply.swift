import Foundation

/// A server's answer to one command, copied out of hiredis's reply object.
enum RedisReply: Sendable, Equatable {
    case string(Data)
    case status(String)
    case integer(Int64)
    case null
    case array([RedisReply])
    /// An error reply (`-OOM …`, `-ERR …`, `-NOAUTH …`): the connection is still usable.
    case error(String)

    var isOK: Bool { self == .status("OK") }

    var isError: Bool {
        if case .error = self { return true }
        return false
    }
}
