import Foundation
import Synchronization

/// A new folder under the temporary directory, removed when this process exits: the
/// harness starts a benchmark executable once per benchmark, and the disk fixtures
/// hold up to 100 MB, so folders left behind filled /tmp run after run.
public func temporaryDirectory() -> String {
    _ = removesFoldersAtExit
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("icb-bench-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    foldersMade.withLock { $0.append(path) }
    return path
}

private let foldersMade = Mutex<[String]>([])
private let removesFoldersAtExit: Void = {
    atexit {
        for path in foldersMade.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}()
