import Foundation
import Workloads
import ImagePipeline

/// Every hostile case through the pipeline (memory tier, coalescing, the
/// decode queue, the thumbnailer's limits), with its outcome, time and the
/// process's peak resident memory after it.
public enum HostileRun {
    public struct Result: Codable, Sendable {
        public var name: String
        public var bytes: Int
        public var expectation: HostileCase.Expectation
        /// "thumbnail 400×300" or the typed error's text.
        public var outcome: String
        /// The right kind of outcome (a fitting thumbnail, or a typed error).
        public var expected: Bool
        /// Expected, and within `timeLimit`.
        public var passed: Bool
        public var milliseconds: Double
        public var peakResidentBytes: Int
    }

    /// The box every case is asked to fit.
    public static let box = ThumbnailRequest(width: 200, height: 200, scale: 2)
    /// Per case, beyond which it fails even with the right outcome.
    public static let timeLimit = Duration.seconds(10)

    /// The table `hostile` prints, a case a row, and its count of cases as expected.
    public static func report(_ results: [Result]) -> String {
        var table = TextTable([
            ("case", .left), ("bytes", .right), ("expected", .left), ("outcome", .left), ("ms", .right), ("peak RSS", .right), ("", .left),
        ])
        for result in results {
            table.append([
                result.name, String(result.bytes), result.expectation.rawValue, String(result.outcome.prefix(90)),
                String(format: "%.1f", result.milliseconds), ByteSize.format(result.peakResidentBytes), result.passed ? "pass" : "FAIL",
            ])
        }
        return table.render() + "\nhostile: \(results.filter(\.passed).count) of \(results.count) cases as expected"
    }

    public static func run(_ cases: [HostileCase]) async throws -> [Result] {
        let fetcher = CorpusFetcher(cases: cases)
        let pipeline = try ImagePipeline(.init(), fetcher: fetcher)
        var results: [Result] = []
        for (index, item) in cases.enumerated() {
            let start = ContinuousClock.now
            let outcome: (String, Bool)
            do {
                let response = try await pipeline.image(for: ImageRequest(url: CorpusFetcher.url(index), box: box))
                let image = response.image
                let fits = image.width >= 1 && image.height >= 1 && image.width <= 400 && image.height <= 400
                outcome = ("thumbnail \(image.width)×\(image.height)", fits && item.expectation == .thumbnail)
            } catch {
                outcome = ("error: \(PlainFailure.clause(error))", item.expectation == .error)
            }
            let elapsed = ContinuousClock.now - start
            results.append(Result(
                name: item.name, bytes: item.data.count, expectation: item.expectation, outcome: outcome.0,
                expected: outcome.1, passed: outcome.1 && elapsed <= timeLimit, milliseconds: elapsed.milliseconds,
                peakResidentBytes: ProcessMetrics.peakResidentBytes))
        }
        return results
    }
}

/// Serves the corpus as if downloaded: case `i` at `hostile://corpus/i`.
struct CorpusFetcher: ImageFetcher {
    let cases: [HostileCase]

    static func url(_ index: Int) -> String { "https://hostile.example/corpus/\(index)" }

    func fetch(_ url: String) async throws -> FetchedImage {
        guard let index = url.split(separator: "/").last.flatMap({ Int($0) }), cases.indices.contains(index) else {
            throw FetchError.status(404)
        }
        return FetchedImage(data: cases[index].data, contentType: "image/*", headDuration: .zero, totalDuration: .zero)
    }
}
