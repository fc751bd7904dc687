import CZlib
import Foundation
import ImagePipeline

/// A picture padded to the bytes its recording downloaded, with data every decoder skips: JPEG
/// comment segments after the start marker, one private ancillary PNG chunk after the header
/// chunk. A replay then carries the recording's bytes over the network and onto disk, not the
/// synthesised picture's (which compresses better than a photograph). A picture already as
/// large, or of another format, is served as made.
enum RecordedSize {
    /// A JPEG segment carries at most this many bytes: its marker, its length, 65,533 of comment.
    static let largestJPEGSegment = 65_537
    /// The PNG chunk's type: ancillary, private, safe to copy.
    static let pngChunkType = Array("icBp".utf8)

    static func padded(_ data: Data, to bytes: Int, format: ImageFormat) -> Data {
        let extra = bytes - data.count
        switch format {
        case .jpeg where extra >= 4 && data.starts(with: [0xFF, 0xD8]):
            var padded = Data(capacity: bytes)
            padded.append(data.prefix(2))
            var remaining = extra
            while remaining >= 4 {
                var segment = min(remaining, largestJPEGSegment)
                // Leave nothing too small for a segment of its own.
                if (1..<4).contains(remaining - segment) { segment -= 4 }
                let length = segment - 2
                padded.append(contentsOf: [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)])
                padded.append(Data(count: segment - 4))
                remaining -= segment
            }
            padded.append(data.dropFirst(2))
            return padded
        case .png where extra >= 12 && data.count >= 33 && data.starts(with: [0x89, 0x50, 0x4E, 0x47]):
            // Signature (8 bytes) and the header chunk (25): the new chunk goes right after.
            let length = extra - 12
            var chunk = Data(capacity: extra)
            chunk.append(contentsOf: withUnsafeBytes(of: UInt32(length).bigEndian, Array.init))
            chunk.append(contentsOf: pngChunkType)
            chunk.append(Data(count: length))
            let crc = chunk.dropFirst(4).withUnsafeBytes { body in
                UInt32(crc32(0, body.bindMemory(to: UInt8.self).baseAddress, uInt(body.count)))
            }
            chunk.append(contentsOf: withUnsafeBytes(of: crc.bigEndian, Array.init))
            var padded = Data(capacity: bytes)
            padded.append(data.prefix(33))
            padded.append(chunk)
            padded.append(data.dropFirst(33))
            return padded
        default:
            return data
        }
    }
}
