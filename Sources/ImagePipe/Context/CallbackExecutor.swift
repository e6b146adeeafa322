import Dispatch

/// Where completion handlers run (SDWebImage's `SDCallbackQueue`). Progress handlers and the
/// pipeline's own work do not go through it.
public protocol CallbackExecutor: Sendable {
    func execute(_ work: @escaping @Sendable () -> Void)
}

/// Runs the handler at once on whatever thread finished the work: the lowest latency, for
/// handlers that only hand the result on.
public struct ImmediateCallbackExecutor: CallbackExecutor {
    public init() {}
    public func execute(_ work: @escaping @Sendable () -> Void) { work() }
}

/// Runs handlers on a dispatch queue, asynchronously.
public struct DispatchQueueCallbackExecutor: CallbackExecutor {
    public let queue: DispatchQueue
    public init(_ queue: DispatchQueue) { self.queue = queue }
    public func execute(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }
}

extension CallbackExecutor where Self == ImmediateCallbackExecutor {
    public static var immediate: ImmediateCallbackExecutor { ImmediateCallbackExecutor() }
}

extension CallbackExecutor where Self == DispatchQueueCallbackExecutor {
    public static func queue(_ queue: DispatchQueue) -> DispatchQueueCallbackExecutor { DispatchQueueCallbackExecutor(queue) }
}
