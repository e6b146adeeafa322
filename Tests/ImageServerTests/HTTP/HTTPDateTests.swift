import Foundation
import Testing

@testable import ImageServer

@Suite("HTTP dates are read in RFC 9110's three forms and written as IMF-fixdate")
struct HTTPDateTests {
    /// RFC 9110's own example, 1994-11-06 08:49:37 UTC.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test("The three forms of RFC 9110's example name the same instant; it is written back as IMF-fixdate")
    func threeForms() {
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(HTTPDate.parse(text) == Self.example, "\(text)")
        }
        #expect(HTTPDate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("Whatever is written reads back as the same second, and agrees with Foundation's formatter")
    func roundTrip() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0..<4_102_444_800, using: &generator)))
            let text = HTTPDate.format(date)
            #expect(text == formatter.string(from: date))
            #expect(HTTPDate.parse(text) == date, "\(text)")
        }
    }

    @Test("Malformed dates are nil: wrong fields, signs, impossible days, other zones, too long")
    func malformed() {
        for text in [
            "", "yesterday", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
            "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sun Nov  6 08:49:37 94", String(repeating: "Sun, 06 Nov 1994 08:49:37 GMT ", count: 3),
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }
}
