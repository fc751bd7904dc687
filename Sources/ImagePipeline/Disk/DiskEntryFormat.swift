import Foundation
import CacheEngine

/// What a disk entry holds: the downloaded original, or a re-encoded thumbnail.
public enum DiskEntryKind: UInt8, Sendable, Codable {
    case original = 1
    case thumbnail = 2
}

/// The layout of one entry file:
///
///     payload | key (UTF-8) | trailer (48 bytes, little-endian)
///
/// trailer: magic "ICBD", version (2), kind (1), reserved (1), key length (4),
/// reserved (4), payload length (8), write sequence (8), XXH64 of the payload (8),
/// XXH64 of key and trailer so far (8).
///
/// The payload comes first so a read can verify the whole file in place and
/// return the payload by shortening the buffer, with no copy. Every field is
/// checked on every read; the key must be the one asked for, so even a SHA-256
/// file-name collision cannot return another key's bytes.
enum DiskEntryFormat {
    static let magic: [UInt8] = Array("ICBD".utf8)
    static let version: UInt16 = 1
    static let trailerSize = 48

    struct Trailer: Equatable {
        var kind: DiskEntryKind
        var keyLength: Int
        var payloadLength: Int
        var sequence: UInt64
        var payloadChecksum: UInt64
    }

    enum Failure: Error, Equatable {
        case tooShort, badMagic, unsupportedVersion(UInt16), badKind(UInt8), lengthMismatch
        case trailerChecksum, payloadChecksum, wrongKey
    }

    /// The complete file for an entry, built in one buffer.
    static func encode(_ payload: Data, key: String, kind: DiskEntryKind, sequence: UInt64) -> Data {
        var key = key
        return key.withUTF8 { keyBytes in
            var file = Data(capacity: payload.count + keyBytes.count + trailerSize)
            file.append(payload)
            file.append(keyBytes)
            file.append(contentsOf: magic)
            append(version, to: &file)
            file.append(contentsOf: [kind.rawValue, 0])
            append(UInt32(keyBytes.count), to: &file)
            append(UInt32(0), to: &file)
            append(UInt64(payload.count), to: &file)
            append(sequence, to: &file)
            append(payload.withUnsafeBytes { XXH64.hash($0) }, to: &file)
            // The key and the trailer so far are contiguous: hash them in place.
            let checked = file.withUnsafeBytes { XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[payload.count...])) }
            append(checked, to: &file)
            return file
        }
    }

    /// Parses the end of a file: `tail` holds its last bytes (at least the key
    /// and the trailer), `fileSize` the whole file's size. Reads in place.
    static func trailer(ofTail tail: UnsafeRawBufferPointer, fileSize: Int) throws(Failure) -> (Trailer, key: Range<Int>) {
        guard tail.count >= trailerSize else { throw .tooShort }
        let start = tail.count - trailerSize
        guard tail[start..<(start + 4)].elementsEqual(magic) else { throw .badMagic }
        let version = UInt16(littleEndian: tail.loadUnaligned(fromByteOffset: start + 4, as: UInt16.self))
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard let kind = DiskEntryKind(rawValue: tail[start + 6]) else { throw .badKind(tail[start + 6]) }
        let keyLength = Int(UInt32(littleEndian: tail.loadUnaligned(fromByteOffset: start + 8, as: UInt32.self)))
        let payloadLength = Int(clamping: UInt64(littleEndian: tail.loadUnaligned(fromByteOffset: start + 16, as: UInt64.self)))
        // Subtraction, not addition: a corrupt length near Int.max must not overflow.
        guard keyLength <= start, payloadLength == fileSize - trailerSize - keyLength else { throw .lengthMismatch }
        let checked = XXH64.hash(UnsafeRawBufferPointer(rebasing: tail[(start - keyLength)..<(start + 40)]))
        guard checked == UInt64(littleEndian: tail.loadUnaligned(fromByteOffset: start + 40, as: UInt64.self)) else {
            throw .trailerChecksum
        }
        let trailer = Trailer(
            kind: kind, keyLength: keyLength, payloadLength: payloadLength,
            sequence: UInt64(littleEndian: tail.loadUnaligned(fromByteOffset: start + 24, as: UInt64.self)),
            payloadChecksum: UInt64(littleEndian: tail.loadUnaligned(fromByteOffset: start + 32, as: UInt64.self)))
        return (trailer, (start - keyLength)..<start)
    }

    /// Parses a tail read on its own (when rebuilding the index) and returns the key.
    static func trailer(ofTail tail: Data, fileSize: Int) throws(Failure) -> (Trailer, key: String) {
        try withBytes(tail) { (bytes: UnsafeRawBufferPointer) throws(Failure) in
            let (trailer, keyRange) = try trailer(ofTail: bytes, fileSize: fileSize)
            return (trailer, String(decoding: bytes[keyRange], as: UTF8.self))
        }
    }

    /// Verifies a whole file in place and shortens it to its payload.
    static func payload(of file: inout Data, expectedKey: String) throws(Failure) -> DiskEntryKind {
        var expectedKey = expectedKey
        let verified = expectedKey.withUTF8 { expected in
            Result { () throws(Failure) -> Trailer in
                try withBytes(file) { (bytes: UnsafeRawBufferPointer) throws(Failure) -> Trailer in
                    let (trailer, keyRange) = try Self.trailer(ofTail: bytes, fileSize: bytes.count)
                    guard bytes[keyRange].elementsEqual(expected) else { throw .wrongKey }
                    let payload = UnsafeRawBufferPointer(rebasing: bytes[0..<trailer.payloadLength])
                    guard XXH64.hash(payload) == trailer.payloadChecksum else { throw .payloadChecksum }
                    return trailer
                }
            }
        }
        let trailer = try verified.get()
        file.count = trailer.payloadLength
        return trailer.kind
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}

/// The disk tier's checked format for other stores whose files may be torn or damaged (the
/// origin's shared image store): a payload sealed with its key and checksums.
package enum SealedFile {
    package static func seal(_ payload: Data, key: String) -> Data {
        DiskEntryFormat.encode(payload, key: key, kind: .original, sequence: 0)
    }

    /// The payload, or nil when the file is torn, damaged or another key's.
    package static func open(_ file: Data, key: String) -> Data? {
        var file = file
        guard (try? DiskEntryFormat.payload(of: &file, expectedKey: key)) != nil else { return nil }
        return file
    }
}
