import PipelineCore

// LoaderHTTP's keys in the typed context: per-request overrides of its configuration.

extension ImageContext.Key where Value == HTTPCredentials {
    /// Basic-auth credentials for this request, instead of the loader's.
    public static var httpCredentials: Self { .init("httpCredentials") }
}

extension ImageContext.Key where Value == HTTPLoadResponse {
    /// A response whose `ETag` / `Last-Modified` a `.refreshCached` load revalidates, for callers
    /// of the loader itself; through the manager, the cache's `.cacheValidators` are used. The
    /// loader keeps no validators of its own.
    public static var cachedResponse: Self { .init("cachedResponse") }
}

extension ImageContext.Key where Value == HTTPRequestModifier {
    /// `downloadRequestModifier`: overrides the loader's request modifier.
    public static var requestModifier: Self { .init("requestModifier", preventsCoalescing: true) }
}

extension ImageContext.Key where Value == HTTPResponseModifier {
    /// `downloadResponseModifier`: overrides the loader's response modifier.
    public static var responseModifier: Self { .init("responseModifier", preventsCoalescing: true) }
}

extension ImageContext.Key where Value == ImageDecryptor {
    /// `downloadDecryptor`: overrides the loader's decryptor.
    public static var decryptor: Self { .init("decryptor", preventsCoalescing: true) }
}

extension ImageContext.Key where Value == HTTPExecutionOrder {
    /// Queue order for this request's download (the loader's default otherwise).
    public static var executionOrder: Self { .init("executionOrder") }
}

extension ImageContext.Key where Value == Int64 {
    /// This request's `maxResponseBytes`, in place of the loader's (larger or smaller).
    public static var maxResponseBytes: Self { .init("maxResponseBytes") }
}
