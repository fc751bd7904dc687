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
            them again for the services DIR holds responses of and compares against those, and --update-targets then writes them \
            into the targets file (the other services' targets kept). A share is judged within 0.05, a size within 20%.
            """)
    @OptionGroup var workloads: WorkloadOptions
    @Option(help: "The targets file.") var targets = "datasets/fidelity-targets.json"
    @Option(help: "Measure the targets on the API responses under this folder (NewsAPI, Aladin, Unsplash and open-market JSON files, in any layout) and compare against them.")
    var measure: String?
    @Flag(help: "With --measure: write the measured targets into --targets once the run has succeeded (its other services' targets kept).")
    var updateTargets = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if updateTargets, measure == nil { throw ValidationError("--update-targets writes what --measure DIR measured; give --measure") }
        if let measure {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: measure, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--measure \(measure): no such folder; give the folder that holds the services' API responses")
            }
        }
    }

    func run() throws {
        try output.claim(inputs: workloads.inputs.inputPaths + [targets] + (measure.map { [$0] } ?? []))
        var targets = try readTargets(required: measure == nil)
        var measured: FidelityTargets?
        if let measure {
            let found = try FidelityTargets.measure(realData: measure, command: commandLine)
            guard !found.targets.isEmpty else {
                throw ValidationError("--measure \(measure): no NewsAPI, Aladin, Unsplash or open-market responses (.json) in it; nothing was measured and \(self.targets) is as it was")
            }
            measured = found
            targets = targets?.replacing(with: found) ?? found
            print("fidelity: measured \(found.targets.count) targets for \(found.services.map(\.rawValue).joined(separator: ", ")) on \(measure)")
        }
        let loaded = try workloads.inputs.load()
        var results = BenchResults(command: commandLine)
        results.datasets = loaded.map(\.summary)
        guard let targets else { return }
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
        guard let measured else { return }
        guard updateTargets else {
            print("fidelity: \(self.targets) is unchanged; --update-targets writes the measured targets into it")
            return
        }
        try OutputFile.write(Data(jsonText(targets).appending("\n").utf8), to: self.targets)
        print("fidelity: wrote \(targets.targets.count) targets to \(self.targets) (\(measured.services.map(\.rawValue).joined(separator: ", ")) measured again)")
    }

    /// The targets file, or nil when it is missing and not `required`.
    private func readTargets(required: Bool) throws -> FidelityTargets? {
        guard FileManager.default.fileExists(atPath: targets) || required else { return nil }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: targets)) } catch {
            throw ValidationError("--targets \(targets): cannot read (\(PlainFailure.clause(error))); make it with --measure DIR --update-targets, DIR a folder of the services' real API responses")
        }
        do { return try JSONDecoder().decode(FidelityTargets.self, from: data) } catch {
            throw ValidationError("--targets \(targets): not a targets file (\(PlainFailure.clause(error)))")
        }
    }
}
