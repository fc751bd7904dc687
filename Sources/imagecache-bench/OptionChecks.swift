import ArgumentParser

/// Range checks for numeric options: a bad number is a usage error (exit 2)
/// that names the option, its range and what was given. Numeric options parse
/// `.unconditional`, so `--sessions -3` reaches these checks instead of reading
/// `-3` as a flag.
enum OptionCheck {
    /// A finite number in `range`.
    static func number(_ value: Double, _ option: String, in range: ClosedRange<Double>, _ meaning: String) throws {
        guard value.isFinite, range.contains(value) else { throw ValidationError("\(option) is \(meaning), not \(value)") }
    }

    /// A whole number of at least `minimum` (and at most `maximum`).
    static func count(_ value: Int, _ option: String, atLeast minimum: Int, atMost maximum: Int = .max) throws {
        guard value >= minimum, value <= maximum else {
            let range = maximum == .max ? "at least \(minimum)" : "from \(minimum) to \(maximum)"
            throw ValidationError("\(option) must be \(range), not \(value)")
        }
    }
}
