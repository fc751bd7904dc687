import Foundation
import Glibc
import ImagePipeline
import ImageSynthesis

/// Synthesised images, each made once and kept as one sealed file, shared by every process
/// that names the same directory (a `record` beside a `replay`, two CI jobs on one machine):
/// - a file appears whole or not at all (written aside, then renamed), and every read checks
///   its seal, so a torn or damaged file is made again, never served;
/// - two processes making one image at once write the same bytes (synthesis is deterministic),
///   so whichever rename lands last changes nothing;
/// - the byte limit is kept by whichever process finds the store over it, under a lock the
///   others skip, by removing the files read least recently (a read touches its file); a file
///   removed while another process reads it stays readable to that reader.
/// Images live in a folder named by the synthesiser's version, so another version's are never served.
final class ImageStore: Sendable {
    let directory: String
    let byteLimit: Int
    /// Bytes this process believes the store holds: counted at the last trim, plus its own
    /// writes since. Other processes' writes show at the next trim.
    private let estimatedBytes: Locked<Int>
    private let temporaryNames = Locked(0)

    init(directory root: String, byteLimit: Int) throws {
        directory = root + "/synthesis-\(ImageSynthesizer.version)"
        self.byteLimit = byteLimit
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        estimatedBytes = Locked(0)
        Self.removeSingleProcessStore(in: root)
        trimIfOver()
    }

    /// Earlier versions kept the images in a disk cache directly in `root` (one process at a
    /// time, its `.lock` held while open): its files are removed once no process holds it.
    private static func removeSingleProcessStore(in root: String) {
        let lockPath = root + "/.lock"
        let lock = open(lockPath, O_RDWR | O_CLOEXEC)
        guard lock >= 0 else { return }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { return }
        let hex = Set("0123456789abcdef")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            let stem = name.split(separator: ".").first.map(String.init) ?? ""
            if name == ".recency" || name == ".recency.tmp" || (stem.count == 64 && stem.allSatisfy(hex.contains)) {
                unlink(root + "/" + name)
            }
        }
        unlink(lockPath)
    }

    /// The encoded image, synthesising it on first use. Returns whether it was made now.
    func image(_ descriptor: ImageDescriptor) throws -> (Data, made: Bool) {
        let key = descriptor.storeKey
        let path = directory + "/" + key
        if let file = FileManager.default.contents(atPath: path) {
            if let image = SealedFile.open(file, key: key) {
                utimensat(AT_FDCWD, path, nil, 0)
                return (image, false)
            }
            unlink(path)
        }
        let image = try ImageSynthesizer.image(SynthesisSpec(
            seed: descriptor.contentID, width: descriptor.width, height: descriptor.height, format: descriptor.encodedFormat))
        write(SealedFile.seal(image, key: key), to: path)
        return (image, true)
    }

    /// Writes aside and renames into place. A store that cannot be written still serves:
    /// the image is made again next time.
    private func write(_ file: Data, to path: String) {
        let number = temporaryNames.withLock { $0 += 1; return $0 }
        let temporary = "\(path).\(getpid())-\(number).partial"
        guard FileManager.default.createFile(atPath: temporary, contents: file) else { return }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            return
        }
        let total = estimatedBytes.withLock { $0 += file.count; return $0 }
        if total > byteLimit { trimIfOver() }
    }

    /// Counts the store and, when it is over the limit, removes the least recently read files
    /// until it holds 90 % of it. One process trims at a time; the others go on serving.
    private func trimIfOver() {
        let lockPath = directory + "/.trim.lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { return }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { return }
        defer { flock(lock, LOCK_UN) }
        var files: [(path: String, bytes: Int, read: timespec)] = []
        let now = time(nil)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !name.hasPrefix(".") {
            let path = directory + "/" + name
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            // A write left behind by a process that died: older than any write takes.
            if name.hasSuffix(".partial") {
                if now - status.st_mtim.tv_sec > 3600 { unlink(path) }
                continue
            }
            files.append((path, Int(status.st_size), status.st_mtim))
        }
        var total = files.reduce(0) { $0 + $1.bytes }
        if total > byteLimit {
            files.sort { ($0.read.tv_sec, $0.read.tv_nsec) < ($1.read.tv_sec, $1.read.tv_nsec) }
            for file in files where total > byteLimit / 10 * 9 {
                if unlink(file.path) == 0 { total -= file.bytes }
            }
        }
        estimatedBytes.withLock { $0 = total }
    }
}
