import NIOCore

#if canImport(Glibc)
import Glibc
#endif

extension ImageServer {
    /// Why the server did not start, in the operator's terms: a taken address names the address
    /// and port (NIO's error names only the system call).
    package static func startFailure(_ error: any Error, configuration: ImageServerConfiguration) -> String {
        if let io = error as? IOError, io.errnoCode == EADDRINUSE {
            return "\(configuration.host) port \(configuration.port) is already in use (another process listens there: stop it, or give --port)"
        }
        if let io = error as? IOError, io.errnoCode == EACCES {
            return "not allowed to listen on \(configuration.host) port \(configuration.port) (ports below 1024 need privileges)"
        }
        return "\(error)"
    }
}
