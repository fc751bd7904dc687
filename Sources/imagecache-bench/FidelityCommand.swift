import ArgumentParser
import Bench
import Foundation

struct FidelityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fidelity",
        abstract: "How each app dataset's images compare with the real API responses of its service: hosts, queries, collisions of keys made from part of the URL, extensions, original sizes.",
        discussion: """
            The targets are numbers measured on ../shared/realdata and kept in datasets/fidelity-targets.json with the files \
            they come from (the responses themselves are third-party and stay out of the project); --measure DIR measures \
            them again and writes the targets file. A share is judged within 0.05, a size within 20%.
            """)
    @OptionGroup var workloads: WorkloadOptions
    @Option(help: "The targets file.") var targets = "datasets/fidelity-targets.json"
    @Option(help: "Measure the targets on the API responses under this folder (../shared/realdata) and write them to --targets.")
    var measure: String?
    @OptionGroup var output: OutputOptions

    func run() throws {
        if let measure {
            let measured = try FidelityTargets.measure(realData: measure, command: commandLine)
            try jsonText(measured).appending("\n").write(toFile: targets, atomically: true, encoding: .utf8)
            print("fidelity: wrote \(measured.targets.count) targets measured on \(measure) to \(targets)")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: targets)) } catch {
            throw ValidationError("--targets \(targets): cannot read (\(error.localizedDescription)); make it with --measure ../shared/realdata")
        }
        let loaded = try workloads.load()
        var results = BenchResults(command: commandLine)
        results.datasets = loaded.map(\.summary)
        results.fidelity = Fidelity.compare(loaded, targets: try JSONDecoder().decode(FidelityTargets.self, from: data))
        output.show("each app dataset against its service's real responses", ReportTables.fidelity(results.fidelity ?? []))
        try output.finish(results)
    }
}
