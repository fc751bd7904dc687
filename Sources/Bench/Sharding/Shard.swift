/// One of `count` parts of a run, to spread it over machines (`--shard index/count`).
/// A command numbers its units of work in the order its results come out, and a
/// shard takes one contiguous range of them: the shards' sections, concatenated
/// in shard order (`ShardMerge`), are then the unsharded run's, row for row.
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses "2/4".
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// This shard's units of `total`: the k-th of n shards takes [total·(k−1)/n, total·k/n),
    /// so the sizes differ by at most one and every unit belongs to exactly one shard.
    public func units(of total: Int) -> Range<Int> {
        total * (index - 1) / count ..< total * index / count
    }
}

extension Optional where Wrapped == Shard {
    /// The units of `total` a run with this shard (or none: all of them) does.
    func units(of total: Int) -> Range<Int> { self?.units(of: total) ?? 0..<total }
}

/// What a shard's `results.json` records so `merge` can check and combine the parts.
public struct ShardRecord: Codable, Sendable, Equatable {
    public var index: Int
    public var count: Int
    /// The command the shards together run: the command line without `--shard`.
    public var command: String

    public init(_ shard: Shard, command: String) {
        index = shard.index
        count = shard.count
        self.command = command
    }
}
