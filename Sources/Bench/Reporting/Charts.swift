import Foundation

/// Charts drawn by gnuplot (SVG). The data files are written either way; when
/// gnuplot is missing the charts are skipped with a note saying what to install.
public enum Charts {
    public static var gnuplot: String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/gnuplot" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public static let missingNote = "charts skipped: gnuplot is not installed (Debian: apt-get install gnuplot-nox); their data files are written"

    /// Miss-ratio curves, one chart per trace: miss ratio against memory size, a line per policy.
    public static func missRatioCurves(_ points: [SweepPoint], in directory: String) throws -> [String] {
        var charts: [String] = []
        for trace in orderedUnique(points.map(\.trace)) {
            let ofTrace = points.filter { $0.trace == trace }
            let series = orderedUnique(ofTrace.map(\.policy)).map { policy in
                (policy, ofTrace.filter { $0.policy == policy }.sorted { $0.memoryBytes < $1.memoryBytes }
                    .map { [Double($0.memoryBytes) / 1_048_576, $0.missRatio] })
            }
            let name = "mrc-" + fileSafe(trace)
            try draw(name, in: directory, title: "Miss ratio against memory size: \(trace)", xLabel: "memory (MiB)",
                     yLabel: "miss ratio", logX: true, series: series)
            charts.append(name + ".svg")
        }
        return charts
    }

    /// Latency by percentile per source, one chart per replay.
    public static func latency(_ reports: [LiveReplayReport], in directory: String) throws -> [String] {
        var charts: [String] = []
        for report in reports {
            let series = ["memory", "joined", "disk", "origin"].compactMap { source -> (String, [[Double]])? in
                guard let summary = report.latency[source] else { return nil }
                return (source, [[50, summary.p50], [90, summary.p90], [99, summary.p99], [99.9, summary.p999]])
            }
            let name = "latency-" + fileSafe(report.trace)
            try draw(name, in: directory, title: "Latency by percentile: \(report.trace)", xLabel: "percentile",
                     yLabel: "milliseconds", logY: true, series: series)
            charts.append(name + ".svg")
        }
        return charts
    }

    /// Resident memory and memory-cache cost over a replay.
    public static func memory(_ reports: [LiveReplayReport], in directory: String) throws -> [String] {
        var charts: [String] = []
        for report in reports where !report.memoryOverTime.isEmpty {
            let series = [
                ("resident (MB)", report.memoryOverTime.map { [$0.seconds, Double($0.residentBytes) / 1e6] }),
                ("memory cache (MB)", report.memoryOverTime.map { [$0.seconds, Double($0.memoryCacheBytes) / 1e6] }),
            ]
            let name = "memory-" + fileSafe(report.trace)
            try draw(name, in: directory, title: "Memory over the replay: \(report.trace)", xLabel: "seconds", yLabel: "MB", series: series)
            charts.append(name + ".svg")
        }
        return charts
    }

    /// Writes `name.dat` and `name.gp`, and runs gnuplot for `name.svg` when it is installed.
    static func draw(
        _ name: String, in directory: String, title: String, xLabel: String, yLabel: String,
        logX: Bool = false, logY: Bool = false, series: [(String, [[Double]])]
    ) throws {
        let data = series.map { label, points in
            "# \(label)\n" + points.map { $0.map { String($0) }.joined(separator: " ") }.joined(separator: "\n")
        }.joined(separator: "\n\n\n") + "\n"
        try data.write(toFile: directory + "/\(name).dat", atomically: true, encoding: .utf8)
        let plots = series.enumerated().map { index, entry in
            "'\(name).dat' index \(index) using 1:2 with linespoints title '\(entry.0.replacingOccurrences(of: "'", with: ""))'"
        }
        let script = """
            set terminal svg size 900,560 dynamic background rgb 'white' font 'sans,12'
            set output '\(name).svg'
            set title '\(title.replacingOccurrences(of: "'", with: ""))'
            set xlabel '\(xLabel)'
            set ylabel '\(yLabel)'
            set grid
            set key outside right
            \(logX ? "set logscale x 2" : "")
            \(logY ? "set logscale y 10" : "")
            plot \(plots.joined(separator: ", \\\n     "))

            """
        try script.write(toFile: directory + "/\(name).gp", atomically: true, encoding: .utf8)
        try render(name, in: directory)
    }

    /// Writes `name.dat` and `name.gp` of clustered bars, one cluster per label, and runs gnuplot when installed.
    static func drawBars(
        _ name: String, in directory: String, title: String, yLabel: String, series: [String], rows: [(label: String, values: [Double])]
    ) throws {
        let data = "label " + series.map { "\"\($0)\"" }.joined(separator: " ") + "\n"
            + rows.map { row in "\"\(row.label)\" " + row.values.map { String($0) }.joined(separator: " ") }.joined(separator: "\n") + "\n"
        try data.write(toFile: directory + "/\(name).dat", atomically: true, encoding: .utf8)
        let plots = series.indices.map { index in
            "'\(name).dat' using \(index + 2):xtic(1) title columnheader(\(index + 2))"
        }
        let script = """
            set terminal svg size 900,560 dynamic background rgb 'white' font 'sans,12'
            set output '\(name).svg'
            set title '\(title.replacingOccurrences(of: "'", with: ""))'
            set ylabel '\(yLabel)'
            set grid ytics
            set key top left
            set style data histograms
            set style histogram clustered gap 1
            set style fill solid 0.8 border -1
            set xtics rotate by -40
            set yrange [0:*]
            plot \(plots.joined(separator: ", "))

            """
        try script.write(toFile: directory + "/\(name).gp", atomically: true, encoding: .utf8)
        try render(name, in: directory)
    }

    private static func render(_ name: String, in directory: String) throws {
        guard let gnuplot else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gnuplot)
        process.arguments = [name + ".gp"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
    }

    static func fileSafe(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
    }

    static func orderedUnique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}
