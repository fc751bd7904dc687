import Foundation

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

    /// The complete file for an entry.
    static func encode(_ payload: Data, key: String, kind: DiskEntryKind, sequence: UInt64) -> Data {
        let keyBytes = Array(key.utf8)
        var file = Data(capacity: payload.count + keyBytes.count + trailerSize)
        file.append(payload)
        file.append(contentsOf: keyBytes)
        let payloadChecksum = payload.withUnsafeBytes { XXH64.hash($0) }
        var trailer: [UInt8] = magic
        trailer += littleEndian(version) + [kind.rawValue, 0] + littleEndian(UInt32(keyBytes.count)) + [0, 0, 0, 0]
        trailer += littleEndian(UInt64(payload.count)) + littleEndian(sequence) + littleEndian(payloadChecksum)
        let trailerChecksum = (keyBytes + trailer).withUnsafeBytes { XXH64.hash($0) }
        trailer += littleEndian(trailerChecksum)
        file.append(contentsOf: trailer)
        return file
    }

    /// Parses the tail of a file (its key and trailer); `fileSize` is the whole file's.
    static func trailer(ofTail tail: Data, fileSize: Int, expectedKey: String?) throws(Failure) -> (Trailer, key: String) {
        guard tail.count >= trailerSize else { throw .tooShort }
        let bytes = [UInt8](tail)
        let start = bytes.count - trailerSize
        guard Array(bytes[start..<(start + 4)]) == magic else { throw .badMagic }
        let version = UInt16(read(bytes, start + 4, 2))
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard let kind = DiskEntryKind(rawValue: bytes[start + 6]) else { throw .badKind(bytes[start + 6]) }
        let keyLength = Int(read(bytes, start + 8, 4))
        let payloadLength = Int(clamping: read(bytes, start + 16, 8))
        // Subtraction, not addition: a corrupt length near Int.max must not overflow.
        guard keyLength <= start, payloadLength == fileSize - trailerSize - keyLength else { throw .lengthMismatch }
        let keyBytes = Array(bytes[(start - keyLength)..<start])
        let checksum = (keyBytes + bytes[start..<(start + 40)]).withUnsafeBytes { XXH64.hash($0) }
        guard checksum == read(bytes, start + 40, 8) else { throw .trailerChecksum }
        let key = String(decoding: keyBytes, as: UTF8.self)
        if let expectedKey, key != expectedKey { throw .wrongKey }
        let trailer = Trailer(
            kind: kind, keyLength: keyLength, payloadLength: payloadLength,
            sequence: read(bytes, start + 24, 8), payloadChecksum: read(bytes, start + 32, 8))
        return (trailer, key)
    }

    /// Verifies a whole file and shortens it to its payload in place.
    static func payload(of file: inout Data, expectedKey: String) throws(Failure) -> DiskEntryKind {
        let tailLength = min(file.count, trailerSize + expectedKey.utf8.count)
        let (trailer, _) = try trailer(
            ofTail: file.suffix(tailLength), fileSize: file.count, expectedKey: expectedKey)
        let checksum = file.withUnsafeBytes { XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[0..<trailer.payloadLength])) }
        guard checksum == trailer.payloadChecksum else { throw .payloadChecksum }
        file.count = trailer.payloadLength
        return trailer.kind
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func read(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        (0..<width).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
