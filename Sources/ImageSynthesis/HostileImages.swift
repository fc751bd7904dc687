/// Hostile inputs made by code, for tests and the origin's fault injection.
public enum HostileImages {
    /// A valid PNG whose header claims `width`×`height` RGB pixels, followed by
    /// one tiny IDAT and IEND: the shape of a decompression bomb, in 70 bytes.
    public static func pngHeader(claimingWidth width: UInt32, height: UInt32) -> [UInt8] {
        let zlibOfOneZero: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]
        return png(ihdr: bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0], idat: zlibOfOneZero)  // 8-bit RGB
    }

    /// A PNG file of one IHDR (13 bytes: width, height, depth, colour type, …) and one IDAT.
    public static func png(ihdr: [UInt8], idat: [UInt8]) -> [UInt8] {
        func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + payload
            return bigEndian(UInt32(payload.count)) + body + bigEndian(crc32(body))
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 (ISO-HDLC), as PNG chunks carry it.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
