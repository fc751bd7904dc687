import Foundation

extension Shard {
    /// `i/n`, with the reason when it is not one.
    public static func parse(_ text: String) throws -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw UsageError("--shard is i/n, part i of n (1/4 … 4/4), not '\(text)'")
        }
        guard count >= 1, count <= 1_000_000 else { throw UsageError("--shard \(text): n, the number of parts, is from 1 to 1000000") }
        guard let shard = Shard(index: index, count: count) else {
            throw UsageError("--shard \(text): i, the part, is from 1 to n (\(count))")
        }
        return shard
    }

    /// Names must tell the traces apart for merged sections to be told apart. A part with
    /// no units (a run of 3 units in 4 parts) still runs, so `merge` finds every part,
    /// and says so rather than writing empty results without a word.
    public func check(traceNames: [String], units: Int, unitName: String) throws {
        if self.units(of: units).isEmpty {
            FileHandle.standardError.write(Data(("shard \(self): this run has \(units) unit\(units == 1 ? "" : "s") (\(unitName)) for \(count) parts, "
                + "and this part has none of them: its results are empty (merge still wants them; at most \(units) parts give every part work)\n").utf8))
        }
        var seen = Set<String>()
        if let repeated = traceNames.first(where: { !seen.insert($0).inserted }) {
            throw UsageError("--shard: two traces are named \(repeated); give traces distinct file names")
        }
    }

    /// Marks the results as this shard's, with the command all the shards run together.
    public func record(in results: inout BenchResults) {
        results.shard = ShardRecord(self, command: Self.commandWithoutShard)
    }

    /// The command line as typed, without `--shard i/n` or `--shard=i/n`.
    static var commandWithoutShard: String {
        var arguments: [String] = []
        var skipNext = false
        for argument in CommandLine.arguments.dropFirst() {
            if skipNext { skipNext = false; continue }
            if argument == "--shard" { skipNext = true; continue }
            if argument.hasPrefix("--shard=") { continue }
            arguments.append(argument)
        }
        return (["imagecache-bench"] + arguments).joined(separator: " ")
    }
}
