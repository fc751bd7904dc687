import ArgumentParser
import Bench

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
    @Option(help: "The targets file.") var targets = FidelityJob().targets
    @Option(help: "Measure the targets on the API responses under this folder (NewsAPI, Aladin, Unsplash and open-market JSON files, in any layout) and compare against them.")
    var measure: String?
    @Flag(help: "With --measure: write the measured targets into --targets once the run has succeeded (its other services' targets kept).")
    var updateTargets = false
    @OptionGroup var output: OutputOptions

    var job: FidelityJob {
        var job = FidelityJob()
        job.inputs = workloads.inputs
        job.targets = targets
        job.measure = measure
        job.updatesTargets = updateTargets
        return job
    }

    func validate() throws { try OptionCheck.library(job.validate) }

    func run() throws { try job.run(output: output.results) }
}
