import ArgumentParser
import Bench
import Foundation
import OriginServer
import Workloads

struct FidelityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fidelity",
        abstract: "How each app dataset's images compare with the real API responses of its service: hosts, queries, collisions of keys made from part of the URL, extensions, original sizes.",
        discussion: """
            The targets are numbers measured on the services' real API responses and kept in datasets/fidelity-targets.json with the files \
            they come from (the responses themselves are third-party and stay out of the project); --measure DIR measures \
            them again and writes the targets file. A share is judged within 0.05, a size within 20%.
            """)
    @OptionGroup var workloads: WorkloadOptions
    @Option(help: "The targets file.") var targets = "datasets/fidelity-targets.json"
    @Option(help: "Measure the targets on the API responses under this folder (NewsAPI, Aladin, Unsplash and open-market JSON files, in any layout) and write them to --targets.")
    var measure: String?
    @OptionGroup var output: OutputOptions

    func run() throws {
        try output.claim(inputs: workloads.inputPaths + [targets])
        if let measure {
            let measured = try FidelityTargets.measure(realData: measure, command: commandLine)
            try jsonText(measured).appending("\n").write(toFile: targets, atomically: true, encoding: .utf8)
            print("fidelity: wrote \(measured.targets.count) targets measured on \(measure) to \(targets)")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: targets)) } catch {
            throw ValidationError("--targets \(targets): cannot read (\(error.localizedDescription)); make it with --measure DIR, a folder of the services' real API responses")
        }
        let loaded = try workloads.load()
        var results = BenchResults(command: commandLine)
        results.datasets = loaded.map(\.summary)
        let targets = try JSONDecoder().decode(FidelityTargets.self, from: data)
        let model = try Fidelity.compare(ResponseSample(seed: 1), targets: targets)
        let datasets = Fidelity.compare(loaded, targets: targets)
        results.fidelity = model + datasets
        output.show("the origin's API pages (seed 1) against the real responses", ReportTables.fidelity(model))
        output.show("each app dataset's requests against its service's real responses", ReportTables.fidelity(datasets))
        if !output.json {
            for service in Service.allCases {
                for (statistics, reason) in Fidelity.notComparableOnRequests(service) {
                    print("\(service.rawValue): compared on the pages only, not on the datasets' requests: \(statistics.sorted().joined(separator: "; ")): \(reason)")
                }
            }
        }
        try output.finish(results)
    }
}
