import PipelineCore

/// Takes a response's body as it arrives, in place of the loader holding it: for relaying a body
/// (a proxy's pass-through) without keeping it whole. The load's result then has empty `data`;
/// `maxResponseBytes` still bounds what is passed on, and the bytes are the origin's as sent: the
/// loader asks for no `Content-Encoding` and decodes none (a request header may ask for one).
///
/// `receive` runs on the loader's thread, once per run of bytes, in order, before the load
/// completes: it must hand the bytes on and return, never wait. While `isFull` says true (the
/// sink's reader is behind), the transfer is paused — the origin's bytes wait in its socket, not
/// in memory — and the loader asks again about every 10 ms. A load with a sink shares its
/// download with no other, and is not retried once bytes were passed on.
public struct HTTPBodySink: Sendable {
    public let receive: @Sendable (UnsafeRawBufferPointer) -> Void
    public let isFull: @Sendable () -> Bool

    public init(isFull: @escaping @Sendable () -> Bool = { false }, _ receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.isFull = isFull
        self.receive = receive
    }
}

extension ImageContext.Key where Value == HTTPBodySink {
    /// Where this request's body goes as it arrives, instead of into the result.
    public static var bodySink: Self { .init("bodySink", preventsCoalescing: true) }
}
