import Foundation
import PipelineTesting
import Testing
@testable import Bench

@Suite("The commit a results.json names")
struct ToolProvenanceTests {
    @Test("read from a checkout's .git folder, and from a worktree's .git file through its gitdir and commondir")
    func worktree() throws {
        let folder = TemporaryFolder("provenance")
        defer { folder.remove() }
        let (main, branch, detached) = (String(repeating: "a", count: 40), String(repeating: "b", count: 40), String(repeating: "c", count: 40))
        let fm = FileManager.default
        func write(_ text: String, _ path: String) throws {
            let url = URL(fileURLWithPath: folder.path + "/" + path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("ref: refs/heads/main\n", "repo/.git/HEAD")
        try write(main + "\n", "repo/.git/refs/heads/main")
        try write("# pack-refs with: peeled\n\(branch) refs/heads/feature\n", "repo/.git/packed-refs")
        try write("ref: refs/heads/feature\n", "repo/.git/worktrees/wt/HEAD")
        try write("../..\n", "repo/.git/worktrees/wt/commondir")
        try write("gitdir: \(folder.path)/repo/.git/worktrees/wt\n", "wt/.git")
        try write(detached + "\n", "repo/.git/worktrees/plain/HEAD")
        try write("gitdir: ../repo/.git/worktrees/plain\n", "plain/.git")

        func commit(_ checkout: String) -> String? {
            ToolProvenance.head(of: ToolProvenance.gitDirectory(URL(fileURLWithPath: folder.path + "/" + checkout + "/.git")))
        }
        #expect(commit("repo") == main)
        #expect(commit("wt") == branch)
        #expect(commit("plain") == detached)
    }
}
