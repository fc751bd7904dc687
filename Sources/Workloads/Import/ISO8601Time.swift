/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`, parsed strictly here rather
/// than by Foundation's formatter: ICU's parser crashes (a division by zero) on a
/// long fraction, which fuzzing found in a crafted HAR.
enum ISO8601Time {
    /// Why a text is not such a date, as a clause ("February 2024 has no day 30").
    struct Problem: Error, Equatable { let reason: String }

    /// Milliseconds since 1970, or nil when `text` is not such a date.
    static func milliseconds(_ text: String) -> Double? { try? parse(text).get() }

    /// Milliseconds since 1970, or why `text` is not such a date.
    static func parse(_ text: String) -> Result<Double, Problem> {
        let form = "not an ISO 8601 date and time (YYYY-MM-DDTHH:MM:SS[.fff] and a zone, Z or ±HH:MM)"
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        func byte(_ index: Int, _ allowed: String) -> Bool { index < bytes.count && allowed.utf8.contains(bytes[index]) }
        guard let year = digits(0..<4), byte(4, "-"), let month = digits(5..<7), byte(7, "-"), let day = digits(8..<10),
              byte(10, "Tt "), let hour = digits(11..<13), byte(13, ":"), let minute = digits(14..<16), byte(16, ":"),
              let second = digits(17..<19)
        else { return .failure(Problem(reason: form)) }
        guard (1...12).contains(month) else { return .failure(Problem(reason: "month \(month) is not 1 to 12")) }
        guard (1...daysIn(month: month, year: year)).contains(day) else {
            return .failure(Problem(reason: "day \(day) is not a day of \(year)-\(month < 10 ? "0" : "")\(month), which has \(daysIn(month: month, year: year))"))
        }
        guard hour < 24, minute < 60, second <= 60 else { return .failure(Problem(reason: "\(hour):\(minute):\(second) is not a time of day")) }
        var index = 19
        var fraction = 0.0
        if byte(index, ".") {
            index += 1
            let start = index
            var scale = 0.1
            while index < bytes.count, (48...57).contains(bytes[index]) {
                if index - start < 9 { fraction += Double(bytes[index] - 48) * scale; scale /= 10 }
                index += 1
            }
            guard index > start else { return .failure(Problem(reason: form)) }
        }
        var offsetMinutes = 0
        if byte(index, "Zz") {
            index += 1
        } else if byte(index, "+-"), let hours = digits((index + 1)..<(index + 3)) {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            let minutesStart = byte(index + 3, ":") ? index + 4 : index + 3
            guard let minutes = digits(minutesStart..<(minutesStart + 2)), hours < 24, minutes < 60 else {
                return .failure(Problem(reason: "the zone offset is not ±HH:MM or ±HHMM within a day"))
            }
            offsetMinutes = sign * (hours * 60 + minutes)
            index = minutesStart + 2
        } else if index == bytes.count {
            return .failure(Problem(reason: "no time zone (Z or ±HH:MM after the time): the moment it names is unknown"))
        } else {
            return .failure(Problem(reason: form))
        }
        guard index == bytes.count else { return .failure(Problem(reason: form)) }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
        return .success((Double(seconds) + fraction) * 1_000)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
