import Foundation
import PipelineCore

extension HTTPLoadResponse {
    /// `ETag`, `Last-Modified` and the freshness lifetime (RFC 9111 §4.2.1, for a private cache):
    /// `no-store` or `no-cache` → 0; else `max-age`; else `Expires` minus `Date` (or minus now
    /// without a `Date`), where an `Expires` that is not a date means already expired. `s-maxage` is
    /// for shared caches and ignored. Nil when the response says none of these.
    public var cacheValidators: CacheValidators? {
        let validators = CacheValidators(etag: header("ETag"), lastModified: header("Last-Modified"), freshnessLifetime: freshnessLifetime)
        return validators.canRevalidate || validators.freshnessLifetime != nil ? validators : nil
    }

    private var freshnessLifetime: TimeInterval? {
        let directives = (header("Cache-Control") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        if directives.contains(where: { $0 == "no-store" || $0 == "no-cache" || $0.hasPrefix("no-cache=") }) { return 0 }
        for directive in directives where directive.hasPrefix("max-age=") {
            let value = directive.dropFirst("max-age=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            // A malformed max-age is treated as stale, as RFC 9111 §4.2.1 advises.
            guard let seconds = Int(value), seconds >= 0 else { return 0 }
            return TimeInterval(seconds)
        }
        guard let expires = header("Expires") else { return nil }
        guard let expiry = Self.httpDate(expires) else { return 0 }
        let origin = header("Date").flatMap(Self.httpDate) ?? Date()
        return max(0, expiry.timeIntervalSince(origin))
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only form senders may produce.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}
