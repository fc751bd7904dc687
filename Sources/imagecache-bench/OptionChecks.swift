import ArgumentParser
import Bench

/// Range checks for numeric options: a bad number is a usage error (exit 2)
/// that names the option, its range and what was given. Numeric options parse
/// `.unconditional`, so `--sessions -3` reaches these checks instead of reading
/// `-3` as a flag.
enum OptionCheck {
    /// A finite number in `range`.
    static func number(_ value: Double, _ option: String, in range: ClosedRange<Double>, _ meaning: String) throws {
        guard value.isFinite, range.contains(value) else { throw ValidationError("\(option) is \(meaning), not \(value)") }
    }

    /// A whole number from `minimum` to `maximum`: every count has a documented top, so no
    /// value a user types reaches an allocation or a loop it cannot finish.
    static func count(_ value: Int, _ option: String, atLeast minimum: Int, atMost maximum: Int) throws {
        guard value >= minimum, value <= maximum else {
            throw ValidationError("\(option) must be from \(minimum) to \(maximum), not \(value)")
        }
    }

    /// The most requests a trace prefix, a live replay or a stress scenario may name: far
    /// beyond any recording, and clear of overflow in anything that sums them.
    static let maximumRequests = 1_000_000_000_000

    /// Refuses an option given more than once: the parser would keep the last and drop the
    /// others without a word (`--policy lru --policy fifo` ran only fifo).
    static func givenOnce(_ options: [String], in arguments: [String] = CommandLine.arguments) throws {
        let given = arguments.dropFirst().prefix { $0 != "--" }.map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? $0 }
        for option in options where given.filter({ $0 == option }).count > 1 {
            throw ValidationError("\(option) is given more than once; give one comma-separated list (\(option) a,b)")
        }
    }

    /// Refuses `others` given beside `option`, which sets what they would.
    static func notBeside(_ option: String, _ others: [String], in arguments: [String] = CommandLine.arguments) throws {
        let given = Set(arguments.dropFirst().prefix { $0 != "--" }.map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? $0 })
        if let clash = others.first(where: given.contains) {
            throw ValidationError("\(clash) is not taken beside \(option), which sets it; change the file, or leave \(option) out")
        }
    }

    /// The library's checks, run while the command line is parsed: its usage errors are the
    /// parser's, so they exit 2 pointing at --help as the parser's own do.
    static func library(_ check: () throws -> Void) throws {
        do { try check() } catch let error as UsageError { throw ValidationError(error.description) } catch let error as PipelineFileError { throw ValidationError(error.description) }
    }
}
