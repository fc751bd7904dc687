import Foundation

/// A folder of a test's own under the temporary directory, made when its first file is asked
/// for, so a test that writes nothing leaves nothing behind.
public struct TemporaryFolder: Sendable {
    public let path: String

    public init(_ name: String) {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("icb-\(name)-\(UUID().uuidString)").path
    }

    /// The path of `name` in the folder, which exists from then on.
    public func file(_ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path + "/" + name
    }

    /// Writes `text` as `name` in the folder; its path.
    public func write(_ name: String, _ text: String) throws -> String {
        let file = try file(name)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
