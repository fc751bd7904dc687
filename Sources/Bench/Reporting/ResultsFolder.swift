import Foundation
import ImagePipeline
import Workloads
#if canImport(Glibc)
import Glibc
#endif

/// A results folder one run owns. Claimed before any work: it must not be, or hold, a
/// file the run reads; a second run into it is refused while the first holds its lock;
/// a folder of other files is refused rather than mixed into. Published after the work:
/// every file is written whole under a staging folder inside it, then renamed into
/// place with `results.json` last, so a folder holding `results.json` is one run's,
/// whole; an earlier run's files are replaced only once the new ones are all written.
public final class ResultsFolder: Sendable {
    public let path: String
    private let fileSystem: any FileSystem
    /// Held until the process ends (the kernel lets go of it however the process ends).
    private let lockDescriptor: Int32

    /// The lock a run holds on its folder; beside the results, not one of them.
    static let lockName = ".lock"
    /// Files being written before they are published.
    static let stagingPrefix = ".incoming-"

    /// Why a results folder cannot be used or written, in one sentence naming the file.
    public struct FolderError: Error, CustomStringConvertible, Equatable {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Whether this run made the folder, and whether it has published into it yet.
    private let made: Bool
    private let published = Locked(false)

    /// Claims `directory` for this run, which reads `inputs` (files or folders); `madeHere` when
    /// the run has just made it (a default folder).
    public init(
        claiming directory: String, inputs: [String], madeHere: Bool = false, fileSystem: any FileSystem = PosixFileSystem()
    ) throws(FolderError) {
        path = directory
        self.fileSystem = fileSystem
        made = madeHere || !FileManager.default.fileExists(atPath: directory)
        try Self.checkPlace(directory, inputs: inputs)
        do {
            lockDescriptor = try fileSystem.lockExclusively(directory + "/" + Self.lockName)
        } catch {
            guard error.code == EWOULDBLOCK else { throw FolderError(path: directory, reason: PlainFailure.clause(error)) }
            let holder = (try? fileSystem.read(directory + "/" + Self.lockName)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let pid = holder.trimmingCharacters(in: .whitespacesAndNewlines)
            throw FolderError(
                path: directory,
                reason: "another run is writing its results here (process \(pid.isEmpty ? "unknown" : pid)); give another --output or wait for it")
        }
        let pid = Data("\(getpid())\n".utf8)
        _ = ftruncate(lockDescriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(lockDescriptor, $0.baseAddress, $0.count, 0) }
        let names = (try? fileSystem.contentsOfDirectory(directory)) ?? []
        // We hold the lock, so staging folders here are a killed run's.
        for name in names where name.hasPrefix(Self.stagingPrefix) {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
        let others = names.filter { !Self.isOurs($0) }
        // A results.json is an earlier run's only when it reads as one: a file of the user's of that name is not.
        if !others.isEmpty, !(others.contains("results.json") && EarlierRun(directory + "/results.json") != nil) {
            throw FolderError(path: directory, reason: "the folder holds other files; give a new or empty folder, or an earlier run's")
        }
    }

    deinit { fileSystem.close(lockDescriptor) }

    /// A run that ends before it publishes takes back the folder it made: the lock, then the
    /// folder if nothing else is in it. A folder it did not make keeps only the lock file.
    public func abandonIfUnpublished() {
        guard made, !published.withLock({ $0 }) else { return }
        unlink(path + "/" + Self.lockName)
        rmdir(path)
    }

    /// An earlier run's `results.json`: read as one only when it has a run's schema, command and
    /// time (a user's file of that name is not a run's); `files`, what that run wrote, is absent
    /// in files written before runs listed them.
    struct EarlierRun: Decodable {
        var schema: Int
        var command: String
        var createdAt: String
        var files: [String]?

        init?(_ path: String) {
            guard let data = FileManager.default.contents(atPath: path), let run = try? JSONDecoder().decode(Self.self, from: data) else {
                return nil
            }
            self = run
        }

        /// The files it names that are plain names in its folder.
        var namesInFolder: [String] { (files ?? []).filter { !$0.isEmpty && !$0.contains("/") && $0 != "." && $0 != ".." } }
    }

    /// Names this tool keeps beside the results: the lock and staging folders.
    static func isOurs(_ name: String) -> Bool { name == lockName || name.hasPrefix(stagingPrefix) }

    /// A folder to write into: created if missing, writable, not inside a file, and
    /// neither one of the inputs nor holding one.
    static func checkPlace(_ directory: String, inputs: [String]) throws(FolderError) {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: directory, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw FolderError(path: directory, reason: "a file, not a folder") }
        } else {
            var ancestor = OutputFile.parent(of: directory)
            while ancestor != ".", ancestor != "/", !manager.fileExists(atPath: ancestor, isDirectory: &isFolder) {
                ancestor = OutputFile.parent(of: ancestor)
            }
            if manager.fileExists(atPath: ancestor, isDirectory: &isFolder), !isFolder.boolValue {
                throw FolderError(path: directory, reason: "inside a file (\(ancestor) is a file)")
            }
            do {
                try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw FolderError(path: directory, reason: "cannot create the folder (\(PlainFailure.clause(error)))")
            }
        }
        guard manager.isWritableFile(atPath: directory) else { throw FolderError(path: directory, reason: "the folder is not writable") }
        let folder = OutputFile.canonical(directory)
        for input in inputs {
            let resolved = OutputFile.canonical(input)
            if resolved == folder {
                throw FolderError(path: directory, reason: "is an input of this run (\(input)); write the results to another folder")
            }
            if resolved.hasPrefix(folder + "/") {
                throw FolderError(path: directory, reason: "holds an input of this run (\(input)); write the results to another folder")
            }
        }
    }

    /// Writes `files` (name and contents, in order) and the files `extra` writes into the
    /// staging folder, then publishes them: `results.json`, when among them, last. On any
    /// failure the staging folder is removed and the folder is as it was.
    public func publish(_ files: [(name: String, contents: Data)], extra: (_ staging: String) throws -> [String] = { _ in [] })
        throws(FolderError) -> [String]
    {
        let staging = path + "/" + Self.stagingPrefix + "\(getpid())"
        try? FileManager.default.removeItem(atPath: staging)
        do { try fileSystem.makeDirectory(staging) } catch { throw FolderError(path: staging, reason: PlainFailure.clause(error)) }
        var written: [String] = []
        do throws(FolderError) {
            for file in files {
                try write(file.contents, to: staging + "/" + file.name, shownAs: path + "/" + file.name)
                written.append(file.name)
            }
            do { written += try extra(staging) } catch let error as FolderError { throw error } catch {
                throw FolderError(path: path, reason: PlainFailure.clause(error))
            }
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        // Every new file is whole: the earlier run's results.json goes first, so a cut-off
        // publish never leaves a folder that reads as one whole run. Of the earlier run's
        // files only those its results.json lists are removed: anything else is not ours.
        let present = Set((try? fileSystem.contentsOfDirectory(path)) ?? [])
        let earlier = (EarlierRun(path + "/results.json")?.namesInFolder ?? []).filter { present.contains($0) && !Self.isOurs($0) }
        do {
            if present.contains("results.json") { try fileSystem.remove(path + "/results.json") }
            let ordered = written.filter { $0 != "results.json" } + written.filter { $0 == "results.json" }
            for name in ordered { try fileSystem.rename(staging + "/" + name, to: path + "/" + name) }
            for name in earlier where !written.contains(name) { try fileSystem.remove(path + "/" + name) }
            try fileSystem.synchronizeDirectory(path)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw FolderError(path: path, reason: PlainFailure.clause(error))
        }
        try? FileManager.default.removeItem(atPath: staging)
        published.withLock { $0 = true }
        return written
    }

    /// One whole file, made durable before it is renamed into place.
    func write(_ contents: Data, to file: String, shownAs shown: String) throws(FolderError) {
        let descriptor: Int32
        do { descriptor = try fileSystem.create(file) } catch { throw FolderError(path: shown, reason: PlainFailure.clause(error)) }
        defer { fileSystem.close(descriptor) }
        let failure: FileSystemError? = contents.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let count: Int
                do throws(FileSystemError) { count = try fileSystem.write(descriptor, UnsafeRawBufferPointer(rebasing: all[offset...])) } catch { return error }
                guard count > 0 else { return FileSystemError("write", file, code: EIO) }
                offset += count
            }
            do throws(FileSystemError) { try fileSystem.synchronize(descriptor) } catch { return error }
            return nil
        }
        if let failure { throw FolderError(path: shown, reason: "cannot write: " + PlainFailure.clause(failure)) }
    }
}
