/// What a results file or trace may say of the user's files: their names, never the folders
/// they are in (a results file or trace committed to a repository would carry a home folder).
public enum PathNames {
    /// The last component of a path (`/home/me/traces/a.jsonl` → `a.jsonl`); `--opt=/a/b` → `--opt=b`;
    /// a word that is no path (`1/2`, a shard) as it is.
    public static func withoutFolders(_ word: String) -> String {
        if word.hasPrefix("-"), let equals = word.firstIndex(of: "=") {
            return String(word[...equals]) + withoutFolders(String(word[word.index(after: equals)...]))
        }
        guard word.contains("/"), !word.allSatisfy({ $0.isNumber || $0 == "/" }) else { return word }
        var trimmed = Substring(word)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed.split(separator: "/").last.map(String.init) ?? word
    }

    /// A command line with every path reduced to its name.
    public static func command(_ words: [String]) -> String { words.map(withoutFolders).joined(separator: " ") }
}
