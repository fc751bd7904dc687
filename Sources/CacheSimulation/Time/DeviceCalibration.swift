import ImagePipeline

/// Device costs fitted to a live pipeline's own timings (`calibrate`, `replay`): the linear models
/// of `DeviceCosts` (a decode: a fixed part, one more through libvips, a part per encoded byte
/// read, one per decoded byte made, one per pixel loaded, one per pixel resized and one per pixel
/// between the resize's passes; a disk read:
/// a part per file and one per byte) with no part negative.
public enum DeviceCalibration {
    /// One thumbnail the live pipeline made, and how long the making took.
    public struct Decode: Sendable, Hashable {
        public var encodedBytes: Int
        public var decodedBytes: Int
        public var work: DecodeWork
        public var nanoseconds: Double

        public init(encodedBytes: Int, decodedBytes: Int, work: DecodeWork = .none, nanoseconds: Double) {
            self.encodedBytes = encodedBytes
            self.decodedBytes = decodedBytes
            self.work = work
            self.nanoseconds = nanoseconds
        }
    }

    /// One disk hit the live pipeline answered, and how long it took besides its decode and its
    /// wait for a place on the decode queue (the lookups, the hops between the pipeline's
    /// queues, the store): the model's disk read.
    public struct Read: Sendable, Hashable {
        public var bytes: Int
        public var nanoseconds: Double

        public init(bytes: Int, nanoseconds: Double) {
            self.bytes = bytes
            self.nanoseconds = nanoseconds
        }
    }

    /// The least decodes (or reads) a fit takes.
    public static let fewestDecodes = 10

    /// `base` with its decode costs fitted to `decodes` and its decode width `width`, and its
    /// disk read costs to `reads` where there are enough; nil with fewer than `fewestDecodes`
    /// decodes. Least squares of the relative error, no part negative.
    public static func fitted(_ decodes: [Decode], reads: [Read] = [], width: Int, base: DeviceCosts = .thisMachine) -> DeviceCosts? {
        let decodes = decodes.filter { $0.nanoseconds > 0 }
        guard decodes.count >= fewestDecodes,
              let decode = nonNegativeFit(
                decodes.map {
                    [1, $0.work.throughLibvips ? 1 : 0, Double($0.encodedBytes) / 1e6, Double($0.decodedBytes) / 1e6,
                     Double($0.work.loadedPixels) / 1e6, Double($0.work.resizedPixels) / 1e6, Double($0.work.betweenPassesPixels) / 1e6]
                }, decodes.map(\.nanoseconds))
        else { return nil }
        var costs = base
        costs.decodeFixedNanoseconds = decode[0]
        costs.decodeLibvipsFixedNanoseconds = decode[1]
        costs.decodeNanosecondsPerEncodedByte = decode[2] / 1e6
        costs.decodeNanosecondsPerDecodedByte = decode[3] / 1e6
        costs.decodeNanosecondsPerLoadedPixel = decode[4] / 1e6
        costs.decodeNanosecondsPerResizedPixel = decode[5] / 1e6
        costs.decodeNanosecondsPerBetweenPassesPixel = decode[6] / 1e6
        costs.decodeWidth = max(width, 1)
        let reads = reads.filter { $0.nanoseconds > 0 }
        if reads.count >= fewestDecodes, let read = nonNegativeFit(reads.map { [1, Double($0.bytes) / 1e6] }, reads.map(\.nanoseconds)) {
            costs.diskReadNanosecondsPerFile = read[0]
            costs.diskReadNanosecondsPerByte = read[1] / 1e6
        }
        return costs
    }

    /// The parts (one per column of `features`, bytes in megabytes so no column dominates the
    /// normal equations) that best give `times`, by least squares of the relative error (each
    /// row weighed by 1/time: a fixed part fitted to the few largest pictures would otherwise
    /// miss every small one by several times), none negative: each subset of the columns is
    /// fitted and the best whose parts are all non-negative kept, which for a few columns is the
    /// non-negative least-squares answer.
    static func nonNegativeFit(_ features: [[Double]], _ times: [Double]) -> [Double]? {
        let width = features.first?.count ?? 0
        // In units of the median time, so the weighed rows are near 1: parts = scale · the solution.
        let scale = Statistics.median(times)
        let rows = zip(features, times).map { row, time in row.map { $0 * scale / time } }
        let targets = [Double](repeating: 1, count: rows.count)
        var best: (parts: [Double], error: Double)?
        for subset in 1..<(1 << width) {
            let columns = (0..<width).filter { subset & (1 << $0) != 0 }
            guard let solved = leastSquares(rows.map { row in columns.map { row[$0] } }, targets),
                  solved.allSatisfy({ $0 >= 0 }) else { continue }
            var parts = [Double](repeating: 0, count: width)
            for (column, value) in zip(columns, solved) { parts[column] = value }
            let error = rows.reduce(0.0) { sum, row in
                let residual = 1 - zip(parts, row).reduce(0) { $0 + $1.0 * $1.1 }
                return sum + residual * residual
            }
            if best.map({ error < $0.error }) ?? true { best = (parts, error) }
        }
        return best.map { $0.parts.map { $0 * scale } }
    }

    /// The median of |modelled − measured| / measured over `decodes`, a fraction: how well `costs` describe them.
    public static func medianError(of costs: DeviceCosts, on decodes: [Decode]) -> Double {
        Statistics.median(decodes.filter { $0.nanoseconds > 0 }.map {
            abs(Double(costs.decodeNanoseconds(encodedBytes: $0.encodedBytes, decodedBytes: $0.decodedBytes, work: $0.work))
                - $0.nanoseconds) / $0.nanoseconds
        })
    }

    /// The least-squares solution of `rows` · x = `targets` through the normal equations; nil when singular.
    static func leastSquares(_ rows: [[Double]], _ targets: [Double]) -> [Double]? {
        let n = rows.first?.count ?? 0
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
        for (row, target) in zip(rows, targets) {
            for i in 0..<n {
                for j in 0..<n { matrix[i][j] += row[i] * row[j] }
                matrix[i][n] += row[i] * target
            }
        }
        // Gaussian elimination with partial pivoting; a pivot lost against the largest diagonal is a singular system.
        let largest = (0..<n).map { abs(matrix[$0][$0]) }.max() ?? 0
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(matrix[$0][column]) < abs(matrix[$1][column]) }),
                  abs(matrix[pivot][column]) > 1e-12 * largest else { return nil }
            matrix.swapAt(column, pivot)
            for row in 0..<n where row != column {
                let factor = matrix[row][column] / matrix[column][column]
                for j in column...n { matrix[row][j] -= factor * matrix[column][j] }
            }
        }
        return (0..<n).map { matrix[$0][n] / matrix[$0][$0] }
    }
}
