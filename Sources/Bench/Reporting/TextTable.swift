import Foundation

/// A plain-text table for terminals: numbers right-aligned, text left-aligned.
public struct TextTable: Sendable {
    public enum Alignment: Sendable { case left, right }

    public let headers: [String]
    public let alignments: [Alignment]
    public private(set) var rows: [[String]] = []

    public init(_ columns: [(String, Alignment)]) {
        headers = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    public mutating func append(_ row: [String]) {
        precondition(row.count == headers.count, "a row needs one cell per column")
        rows.append(row)
    }

    public func render() -> String {
        let widths = headers.indices.map { column in
            ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - cells[column].count)
                return alignments[column] == .left ? cells[column] + padding : padding + cells[column]
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }

    /// The same table in GitHub Markdown, for pull requests.
    public func markdown() -> String {
        // A cell is one line with no bare pipe: a trace named `a|b` or with a line break stays in its column.
        func cell(_ text: String) -> String {
            text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\r\n", with: " ")
                .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        }
        let header = "| " + headers.map(cell).joined(separator: " | ") + " |"
        let rule = "| " + alignments.map { $0 == .left ? "---" : "---:" }.joined(separator: " | ") + " |"
        return ([header, rule] + rows.map { "| " + $0.map(cell).joined(separator: " | ") + " |" }).joined(separator: "\n")
    }

    /// The same table as CSV (RFC 4180 quoting), for spreadsheets.
    public func csv() -> String {
        func quoted(_ cell: String) -> String {
            cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
        }
        return ([headers] + rows).map { $0.map(quoted).joined(separator: ",") }.joined(separator: "\n") + "\n"
    }
}
