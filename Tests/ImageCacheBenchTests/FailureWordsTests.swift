import Foundation
import Testing

/// Every error that can reach a user goes through `PlainFailure.clause`, the one place a system,
/// Foundation or decoding error becomes words: this walks every line of the targets that talk to
/// users and fails on an error printed any other way (a Cocoa error number, a decoder's dump).
@Suite("failures reach users in words")
struct FailureWordsTests {
    static let userFacing = ["Workloads", "CacheSimulation", "Bench", "imagecache-bench"]
    static let rawForms = ["\\(error)", "String(describing: error)", "localizedDescription", "error as NSError", "\\(error.self)"]

    @Test("no catch that prints or rethrows for a user shows an error raw")
    func everyCatchSpeaksPlainly() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        var found: [String] = [], lines = 0
        for target in Self.userFacing {
            let folder = sources.appendingPathComponent(target)
            let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            for file in files where file.hasSuffix(".swift") && !file.hasSuffix("PlainFailure.swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    lines += 1
                    // Logs are for developers, at debug level; they may carry the whole error.
                    if line.contains("logger.") { continue }
                    if Self.rawForms.contains(where: { line.contains($0) }) { found.append("\(target)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))") }
                }
            }
        }
        #expect(lines > 10_000, "read \(lines) lines")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
