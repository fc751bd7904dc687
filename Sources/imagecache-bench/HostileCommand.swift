import ArgumentParser
import Foundation
import Bench

struct HostileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile",
        abstract: "Run the generated hostile-image corpus through the pipeline: a fitting thumbnail or a typed error for each, no crash.",
        discussion: "Exits 1 when a case has the wrong outcome or takes longer than \(HostileRun.timeLimit).")
    @Flag(help: "Print the results as JSON.") var json = false

    func run() async throws {
        let results = try await HostileRun.run(try HostileCorpus.make())
        if json {
            print(try ResultsJSON.text(results))
        } else {
            var table = TextTable([
                ("case", .left), ("bytes", .right), ("expected", .left), ("outcome", .left), ("ms", .right), ("peak RSS", .right), ("", .left),
            ])
            for result in results {
                table.append([
                    result.name, String(result.bytes), result.expectation.rawValue, String(result.outcome.prefix(90)),
                    String(format: "%.1f", result.milliseconds), ByteSize.format(result.peakResidentBytes), result.passed ? "pass" : "FAIL",
                ])
            }
            print(table.render())
            print("hostile: \(results.filter(\.passed).count) of \(results.count) cases as expected")
        }
        if results.contains(where: { !$0.passed }) { throw ExitCode.failure }
    }
}
