import ImagePipeline

/// What the device's own work takes on the simulator's clock: making a thumbnail and reading
/// the disk. A linear model; the defaults are this machine's (a 2-core VM), from `calibrate` on
/// four datasets' replays paced to LTE, release build (BENCHMARKS.md, "The device's costs"). A phone's own
/// figures come from a calibration of that phone, which this machine cannot make.
public struct DeviceCosts: Sendable, Hashable, Codable {
    /// Every thumbnail: opening the image and the decoder.
    public var decodeFixedNanoseconds: Double
    /// A thumbnail libvips makes (not a JPEG libjpeg decodes as it is): its pipeline and threads.
    public var decodeLibvipsFixedNanoseconds: Double
    /// Per encoded byte: entropy decoding reads every byte, whatever the shrink.
    public var decodeNanosecondsPerEncodedByte: Double
    /// Per decoded thumbnail byte (its cost): the pixels made.
    public var decodeNanosecondsPerDecodedByte: Double
    /// Per pixel the loader makes (`DecodeWork.loadedPixels`): a PNG's whole picture, a JPEG's
    /// shrunk on load.
    public var decodeNanosecondsPerLoadedPixel: Double
    /// Per pixel that goes into the resize to the thumbnail's size (`DecodeWork.resizedPixels`).
    public var decodeNanosecondsPerResizedPixel: Double
    /// Per pixel between the resize's two passes (`DecodeWork.betweenPassesPixels`).
    public var decodeNanosecondsPerBetweenPassesPixel: Double
    /// Thumbnails made at once (the pipeline's decode queue).
    public var decodeWidth: Int
    /// A disk read: the index, the open, the checksum.
    public var diskReadNanosecondsPerFile: Double
    public var diskReadNanosecondsPerByte: Double

    public init(
        decodeFixedNanoseconds: Double = 9_000, decodeLibvipsFixedNanoseconds: Double = 1_570_000, decodeNanosecondsPerEncodedByte: Double = 3.34,
        decodeNanosecondsPerDecodedByte: Double = 0.66, decodeNanosecondsPerLoadedPixel: Double = 0, decodeNanosecondsPerResizedPixel: Double = 7.2,
        decodeNanosecondsPerBetweenPassesPixel: Double = 17.75, decodeWidth: Int = 2, diskReadNanosecondsPerFile: Double = 101_000,
        diskReadNanosecondsPerByte: Double = 0.24
    ) {
        self.decodeFixedNanoseconds = decodeFixedNanoseconds
        self.decodeLibvipsFixedNanoseconds = decodeLibvipsFixedNanoseconds
        self.decodeNanosecondsPerEncodedByte = decodeNanosecondsPerEncodedByte
        self.decodeNanosecondsPerDecodedByte = decodeNanosecondsPerDecodedByte
        self.decodeNanosecondsPerLoadedPixel = decodeNanosecondsPerLoadedPixel
        self.decodeNanosecondsPerResizedPixel = decodeNanosecondsPerResizedPixel
        self.decodeNanosecondsPerBetweenPassesPixel = decodeNanosecondsPerBetweenPassesPixel
        self.decodeWidth = decodeWidth
        self.diskReadNanosecondsPerFile = diskReadNanosecondsPerFile
        self.diskReadNanosecondsPerByte = diskReadNanosecondsPerByte
    }

    /// This machine's figures (2-core VM), said as such wherever they are used.
    public static let thisMachine = DeviceCosts()

    @inline(__always)
    func decodeNanoseconds(encodedBytes: Int, decodedBytes: Int, work: DecodeWork = .none) -> UInt64 {
        UInt64(decodeFixedNanoseconds + (work.throughLibvips ? decodeLibvipsFixedNanoseconds : 0)
               + decodeNanosecondsPerEncodedByte * Double(encodedBytes) + decodeNanosecondsPerDecodedByte * Double(decodedBytes)
               + decodeNanosecondsPerLoadedPixel * Double(work.loadedPixels) + decodeNanosecondsPerResizedPixel * Double(work.resizedPixels)
               + decodeNanosecondsPerBetweenPassesPixel * Double(work.betweenPassesPixels))
    }

    func diskReadNanoseconds(bytes: Int) -> UInt64 {
        UInt64(diskReadNanosecondsPerFile + diskReadNanosecondsPerByte * Double(bytes))
    }
}
