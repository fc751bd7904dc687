/// Figures of a sample, for comparing simulated times with recorded or live ones.
public enum Statistics {
    /// The median: the figure least moved by a noisy neighbour; nan for no values.
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// Spearman's ρ: Pearson's correlation of the ranks, ties given their mean rank; 0 when
    /// either side is constant.
    public static func spearman(_ a: [Double], _ b: [Double]) -> Double {
        let (x, y) = (ranks(a), ranks(b))
        let n = Double(x.count)
        let (mx, my) = (x.reduce(0, +) / n, y.reduce(0, +) / n)
        var (sxy, sxx, syy) = (0.0, 0.0, 0.0)
        for (u, v) in zip(x, y) {
            sxy += (u - mx) * (v - my)
            sxx += (u - mx) * (u - mx)
            syy += (v - my) * (v - my)
        }
        return sxx == 0 || syy == 0 ? 0 : sxy / (sxx * syy).squareRoot()
    }

    /// Each value's rank from 1, ties given their mean rank.
    static func ranks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            for position in start...end { ranks[order[position]] = Double(start + end) / 2 + 1 }
            start = end + 1
        }
        return ranks
    }
}
