/// What `import har` says it did: every entry accounted for, by what it became or why not.
extension HARImporter.Summary {
    public func lines(output: String) -> [String] {
        let summary = self
        var lines = ["wrote \(output): \(summary.images) picture requests and \(summary.apiPages) API pages from \(summary.entries) entries"
            + (summary.revalidations > 0 ? " (\(summary.revalidations) of the pictures 304 revalidations of a picture fetched earlier)" : "")]
        lines.append("sessions: \(summary.mapping)" + (summary.devices > 1 ? " (\(summary.devices) devices)" : ""))
        if summary.images > 0 {
            let ways = HARImporter.SizeSource.allCases.compactMap { source in summary.sizedBy[source].map { "\(source.rawValue) \($0)" } }
            lines.append("sized by: " + ways.joined(separator: ", ")
                + (summary.unknownSizes > 0 ? " (commands that price memory ask for --assume-pixels WxH for the unknown)" : ""))
        }
        if summary.skippedEntries > 0 {
            let reasons = summary.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }
            lines.append("skipped \(summary.skippedEntries): " + reasons.joined(separator: "; "))
        }
        if summary.damagedEntries > 0 {
            lines.append("damaged \(summary.damagedEntries) (--strict refuses them): " + summary.damaged.prefix(3).joined(separator: "; ")
                + (summary.damagedEntries > 3 ? "; …" : ""))
        }
        return lines
    }
}
