/// What the device's own work takes on the simulator's clock: making a thumbnail and reading
/// the disk. A linear model, fitted to this machine's `Decoding` benchmarks (BENCHMARKS.md:
/// a 6000×4000 JPEG to a 400 px box 38 ms, a news image 4.8 ms, a cover 2.5 ms); a phone's
/// own figures come from a calibration of that phone, which this machine cannot make.
public struct DeviceCosts: Sendable, Hashable, Codable {
    /// Every thumbnail: opening the image and the decoder.
    public var decodeFixedNanoseconds: Double
    /// Per encoded byte: entropy decoding reads every byte, whatever the shrink.
    public var decodeNanosecondsPerEncodedByte: Double
    /// Per decoded thumbnail byte (its cost): the pixels made and resized.
    public var decodeNanosecondsPerDecodedByte: Double
    /// Per pixel of the source picture: what a decoder does over the whole picture (a PNG is
    /// inflated and unfiltered whole; a JPEG shrinks on load, so its share is smaller). 0 in the
    /// defaults; `calibrate` fits it.
    public var decodeNanosecondsPerSourcePixel: Double
    /// Thumbnails made at once (the pipeline's decode queue).
    public var decodeWidth: Int
    /// A disk read: the index, the open, the checksum.
    public var diskReadNanosecondsPerFile: Double
    public var diskReadNanosecondsPerByte: Double

    public init(
        decodeFixedNanoseconds: Double = 800_000, decodeNanosecondsPerEncodedByte: Double = 10,
        decodeNanosecondsPerDecodedByte: Double = 10.7, decodeNanosecondsPerSourcePixel: Double = 0, decodeWidth: Int = 2,
        diskReadNanosecondsPerFile: Double = 5_000, diskReadNanosecondsPerByte: Double = 0.1
    ) {
        self.decodeFixedNanoseconds = decodeFixedNanoseconds
        self.decodeNanosecondsPerEncodedByte = decodeNanosecondsPerEncodedByte
        self.decodeNanosecondsPerDecodedByte = decodeNanosecondsPerDecodedByte
        self.decodeNanosecondsPerSourcePixel = decodeNanosecondsPerSourcePixel
        self.decodeWidth = decodeWidth
        self.diskReadNanosecondsPerFile = diskReadNanosecondsPerFile
        self.diskReadNanosecondsPerByte = diskReadNanosecondsPerByte
    }

    /// This machine's figures (2-core VM), said as such wherever they are used.
    public static let thisMachine = DeviceCosts()

    func decodeNanoseconds(encodedBytes: Int, decodedBytes: Int, sourcePixels: Int = 0) -> UInt64 {
        UInt64(decodeFixedNanoseconds + decodeNanosecondsPerEncodedByte * Double(encodedBytes)
               + decodeNanosecondsPerDecodedByte * Double(decodedBytes) + decodeNanosecondsPerSourcePixel * Double(sourcePixels))
    }

    func diskReadNanoseconds(bytes: Int) -> UInt64 {
        UInt64(diskReadNanosecondsPerFile + diskReadNanosecondsPerByte * Double(bytes))
    }
}
