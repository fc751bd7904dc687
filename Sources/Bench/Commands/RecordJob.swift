import Foundation
import Workloads

/// `record`: an app model run against the loopback origin, its trace written.
public struct RecordJob: Sendable {
    /// An app's name, or all.
    public var app = ""
    public var sessions = 10
    public var seed: UInt64 = 1
    public var output = ""
    public var store = Recording.defaultStore
    /// A URL catalogue whose real image URLs the origin's pages hand out.
    public var catalogue: String?
    public var sharedFileNames = 0.0

    public init() {}

    /// What `record` prints.
    public func run() async throws -> String {
        let name = app.lowercased().replacingOccurrences(of: " ", with: "")
        let apps = name == "all" ? AppName.allCases : AppName(rawValue: name).map { [$0] }
        guard let apps else {
            throw UsageError("unknown app \"\(app)\"; choose one of \(AppName.allCases.map(\.rawValue).joined(separator: ", ")) or all")
        }
        let progress = ProgressLine()
        let urls = try catalogue.map { try URLCatalogue.load($0) }
        // The trace's header names the command that made it, so the same command makes it again.
        let generator = "imagecache-bench record --app \(name) --sessions \(sessions) --seed \(seed)"
            + (catalogue.map { " --catalogue \(URL(fileURLWithPath: $0).lastPathComponent)" } ?? "")
            + (sharedFileNames > 0 ? " --shared-file-names \(sharedFileNames)" : "")
        let summary = try await Recording.run(apps, sessions: sessions, seed: seed, output: output, generator: generator,
                                              store: store, catalogue: urls, sharedFileNameShare: sharedFileNames) { progress.update("record \(name): session \($0) of \(sessions)") }
        progress.finish()
        return "wrote \(output): \(summary.events) events, \(summary.imageRequests) image requests, \(summary.apiRequests) API pages"
    }
}
