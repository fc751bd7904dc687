import Foundation

/// Which build made a results file: the tool's version and, when the binary was
/// built inside a git checkout (as `swift build` does), that checkout's commit.
public struct ToolProvenance: Codable, Sendable, Equatable {
    public static let version = "0.8.0"

    public var version: String
    /// The commit checked out where the binary was built; nil outside a git checkout.
    public var commit: String?

    public static let current = ToolProvenance(version: version, commit: commitOfBuildCheckout())

    /// Walks up from the executable (…/repo/.build/<triple>/debug/imagecache-bench) to
    /// the checkout and reads its HEAD, without running git.
    static func commitOfBuildCheckout() -> String? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            let git = folder.appendingPathComponent(".git")
            if FileManager.default.fileExists(atPath: git.path) { return head(of: gitDirectory(git)) }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// The git directory: `.git` itself, or, in a worktree or submodule, where its `.git` file's
    /// "gitdir: " line points (relative to the checkout unless absolute).
    static func gitDirectory(_ git: URL) -> URL {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: git.path, isDirectory: &isFolder), !isFolder.boolValue,
              let text = try? String(contentsOf: git, encoding: .utf8), text.hasPrefix("gitdir: ") else { return git }
        let path = String(text.dropFirst(8)).trimmingCharacters(in: .whitespacesAndNewlines)
        return path.hasPrefix("/") ? URL(fileURLWithPath: path) : git.deletingLastPathComponent().appendingPathComponent(path)
    }

    /// HEAD's commit: a detached hash, or the branch's loose or packed ref (in a worktree, the
    /// refs are the main checkout's: its `commondir`).
    static func head(of git: URL) -> String? {
        guard let head = try? String(contentsOf: git.appendingPathComponent("HEAD"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        guard head.hasPrefix("ref: ") else { return isHash(head) ? head : nil }
        let ref = String(head.dropFirst(5))
        let common = (try? String(contentsOf: git.appendingPathComponent("commondir"), encoding: .utf8))
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : git.appendingPathComponent($0) }
        let git = common ?? git
        if let loose = try? String(contentsOf: git.appendingPathComponent(ref), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines), isHash(loose) {
            return loose
        }
        let packed = (try? String(contentsOf: git.appendingPathComponent("packed-refs"), encoding: .utf8)) ?? ""
        for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
            let hash = String(line.prefix { $0 != " " })
            if isHash(hash) { return hash }
        }
        return nil
    }

    static func isHash(_ text: String) -> Bool { text.count == 40 && text.allSatisfy(\.isHexDigit) }
}
