import ArgumentParser
import Bench

struct HostileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile",
        abstract: "Run the generated hostile-image corpus through the pipeline: a fitting thumbnail or a typed error for each, no crash.",
        discussion: "Exits 1 when a case has the wrong outcome or takes longer than \(HostileRun.timeLimit).")
    @Flag(help: "Print the results as JSON.") var json = false

    func run() async throws {
        let results = try await HostileRun.run(try HostileCorpus.make())
        print(json ? try ResultsJSON.text(results) : HostileRun.report(results))
        if results.contains(where: { !$0.passed }) { throw ExitCode.failure }
    }
}
