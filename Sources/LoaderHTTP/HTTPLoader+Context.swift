import PipelineCore

extension ImageContext.Key where Value == HTTPCredentials {
    /// Basic-auth credentials for this request, instead of the loader's.
    public static var httpCredentials: Self { .init("httpCredentials") }
}

extension ImageContext.Key where Value == ImageLoadResponse {
    /// The cached response whose `ETag` / `Last-Modified` a `.refreshCached` load revalidates;
    /// without it the loader uses the validators it saw last for the URL.
    public static var cachedResponse: Self { .init("cachedResponse") }
}
