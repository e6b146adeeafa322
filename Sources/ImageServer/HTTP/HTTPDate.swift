import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms a
/// recipient must also read. Read and written by hand: a `DateFormatter` per request costs more
/// than the rest of a cached answer, and one shared formatter is not safe across threads.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date `text` names in any of the three forms, or nil. The weekday must be a weekday's
    /// name; whether it is the right one is not checked (RFC 9110 lets a recipient ignore it).
    static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        // asctime pads the day with a space (`Nov  6`).
        let words = text.split(separator: " ").map(String.init)
        switch words.count {
        case 6:
            // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
            guard words[0].hasSuffix(","), weekdays.contains(String(words[0].dropLast())), words[5] == "GMT", words[1].count == 2,
                words[3].count == 4, let day = number(words[1]), let month = months.firstIndex(of: words[2]), let year = number(words[3])
            else { return nil }
            return date(year: year, month: month, day: day, time: words[4])
        case 4:
            // RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`.
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard words[0].hasSuffix(","), longWeekdays.contains(String(words[0].dropLast())), words[3] == "GMT", parts.count == 3,
                parts[0].count == 2, parts[2].count == 2, let day = number(parts[0]), let month = months.firstIndex(of: parts[1]),
                let shortYear = number(parts[2])
            else { return nil }
            return date(year: fullYear(shortYear), month: month, day: day, time: words[2])
        case 5:
            // asctime: `Sun Nov  6 08:49:37 1994`.
            guard weekdays.contains(words[0]), words[2].count <= 2, words[4].count == 4, let month = months.firstIndex(of: words[1]),
                let day = number(words[2]), let year = number(words[4])
            else { return nil }
            return date(year: year, month: month, day: day, time: words[3])
        default:
            return nil
        }
    }

    /// `date` as IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form a server sends.
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(weekdays[Int(parts.tm_wday)]), \(padded(parts.tm_mday, 2)) \(months[Int(parts.tm_mon)]) \(padded(parts.tm_year + 1900, 4)) "
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2)) GMT"
    }

    /// RFC 9110: a two-digit year more than 50 years ahead is the latest past year with those digits.
    private static func fullYear(_ twoDigits: Int, now: Date = Date()) -> Int {
        var seconds = time_t(now.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let thisYear = Int(parts.tm_year) + 1900
        let year = thisYear - thisYear % 100 + twoDigits
        return year > thisYear + 50 ? year - 100 : year
    }

    /// `text` as a decimal number when it is only ASCII digits (`Int` also takes a sign).
    private static func number<Text: StringProtocol>(_ text: Text) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(text)
    }

    /// The instant of `HH:MM:SS` on the day given, or nil when a field is out of range.
    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ $0.count == 2 }), let hour = number(fields[0]), let minute = number(fields[1]),
            let second = number(fields[2]), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...31).contains(day), (1...9999).contains(year)
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // timegm carries an impossible day (`31 Feb`) into the next month: refuse it instead.
        guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
