import Foundation
import Testing

/// The GitHub Action's figures step (`scripts/action figures`, what action.yml runs) on a project
/// of a user's own: a trace and a pipeline file, with no baseline yet, then gated against the
/// baseline its base branch holds, whatever the working tree's copy says.
@Suite("The Action's figures step on a project of your own")
struct ActionStepsTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs the step in `project` with the Action's inputs as the Action passes them.
    static func figures(in project: URL, _ inputs: [String: String]) async throws -> BenchProcess.Output {
        let environment = inputs.map { "INPUT_\($0.key)=\($0.value)" }.sorted() + [
            "IMAGECACHE_BENCH=\(BenchProcess.executable.path)",
            "GITHUB_STEP_SUMMARY=\(project.appendingPathComponent("step-summary.md").path)",
        ]
        return try await BenchProcess.run(
            environment + ["bash", repository.appendingPathComponent("scripts/action").path, "figures"],
            executable: "/usr/bin/env", directory: project)
    }

    static func git(_ arguments: [String], in project: URL) async throws {
        let output = try await BenchProcess.run(
            ["-c", "user.name=test", "-c", "user.email=test@example.invalid"] + arguments, executable: "/usr/bin/git", directory: project)
        #expect(output.status == 0, "git \(arguments.joined(separator: " ")): \(output.stderr)")
    }

    @Test("no baseline: said plainly, nothing compared, exit 0; then the base branch's baseline is the one gated against, and a regression exits 1")
    func baselineFromTheBaseBranch() async throws {
        let project = FileManager.default.temporaryDirectory.appendingPathComponent("action-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: project.appendingPathComponent("traces"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: project) }
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("datasets/vanilladin-small.jsonl"),
            to: project.appendingPathComponent("traces/feed.jsonl"))
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("presets/fixed.yaml"), to: project.appendingPathComponent("ours.yaml"))
        let inputs = ["TRACES": "traces/feed.jsonl", "PIPELINE": "ours.yaml", "BASELINE": "baselines/figures.json", "BASE_REF": "main"]

        var first = inputs
        first["RESULTS"] = "first"
        let alone = try await Self.figures(in: project, first)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("gate: no baseline at baselines/figures.json"))
        let comment = try String(contentsOf: project.appendingPathComponent("first/comment.md"), encoding: .utf8)
        #expect(comment.hasPrefix("## Summary"))
        #expect(comment.contains("### Gate against no baseline"))
        let summary = try String(contentsOf: project.appendingPathComponent("step-summary.md"), encoding: .utf8)
        #expect(summary == comment)

        // The main branch's baseline is this run's figures; the working tree's copy is damaged.
        try FileManager.default.createDirectory(at: project.appendingPathComponent("baselines"), withIntermediateDirectories: true)
        let made = try await BenchProcess.run(
            ["gate", "first/results.json", "--baseline", "baselines/figures.json", "--update-baseline"], directory: project)
        #expect(made.status == 0, "\(made.stderr)")
        try await Self.git(["init", "-q", "-b", "main"], in: project)
        try await Self.git(["add", "baselines/figures.json"], in: project)
        try await Self.git(["commit", "-q", "-m", "baseline"], in: project)
        let baselineFile = project.appendingPathComponent("baselines/figures.json")
        let committed = try Data(contentsOf: baselineFile)
        try Data("not a baseline".utf8).write(to: baselineFile)

        var second = inputs
        second["RESULTS"] = "second"
        let gated = try await Self.figures(in: project, second)
        #expect(gated.status == 0, "\(gated.stdout)\(gated.stderr)")
        #expect(gated.stdout.contains("gate: compared"))
        #expect(gated.stdout.contains("0 regressed"))
        #expect(try String(contentsOf: project.appendingPathComponent("second/comment.md"), encoding: .utf8).contains("### Gate against main"))

        // A base branch whose hit ratio was higher: the step exits 1, as the gate does.
        var baseline = try #require(try JSONSerialization.jsonObject(with: committed) as? [String: Any])
        var figures = try #require(baseline["figures"] as? [[String: Any]])
        let hitRatio = try #require(figures.firstIndex { ($0["id"] as? String)?.hasSuffix("/hitRatio") == true })
        figures[hitRatio]["value"] = 0.99
        baseline["figures"] = figures
        try JSONSerialization.data(withJSONObject: baseline).write(to: baselineFile)
        try await Self.git(["commit", "-q", "-am", "a better baseline"], in: project)
        var third = inputs
        third["RESULTS"] = "third"
        let regressed = try await Self.figures(in: project, third)
        #expect(regressed.status == 1, "\(regressed.stdout)\(regressed.stderr)")
        #expect(regressed.stdout.contains("1 regressed"))
    }

    @Test("a pipeline file that is not there is refused by name, exit 2, before any run")
    func missingPipeline() async throws {
        let project = FileManager.default.temporaryDirectory.appendingPathComponent("action-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: project) }
        let output = try await Self.figures(in: project, ["PIPELINE": "missing.yaml", "RESULTS": "out"])
        #expect(output.status == 2)
        #expect(output.stderr.contains("pipeline missing.yaml (INPUT_PIPELINE): no such file"))
        #expect(!FileManager.default.fileExists(atPath: project.appendingPathComponent("out").path))
    }
}
