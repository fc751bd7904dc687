import Testing
@testable import CacheSimulation
import ImagePipeline

@Suite("The device's calibration")
struct DeviceCalibrationTests {
    @Test("decodes made by a known linear model (fixed, through libvips, per encoded byte, per decoded byte, per pixel loaded, resized and between passes) give its parts back; reads give theirs; the width is the pipeline's")
    func recovers() throws {
        var decodes: [DeviceCalibration.Decode] = [], reads: [DeviceCalibration.Read] = []
        for index in 0..<200 {
            let encoded = 2_000 + index * 1_700 % 90_000, decoded = 10_000 + index * 7_919 % 600_000, pixels = 50_000 + index * 104_729 % 4_000_000
            let resized = index % 3 == 0 ? 0 : pixels / (1 + index % 4), libvips = index % 5 != 0
            let between = resized == 0 ? 0 : resized / (2 + index % 7)
            decodes.append(.init(
                encodedBytes: encoded, decodedBytes: decoded, work: DecodeWork(loadedPixels: pixels, resizedPixels: resized, betweenPassesPixels: between, throughLibvips: libvips),
                nanoseconds: 300_000 + (libvips ? 5_000_000 : 0) + 4 * Double(encoded) + 1.5 * Double(decoded) + 2.5 * Double(pixels) + 30 * Double(resized)
                    + 12 * Double(between)))
            reads.append(.init(bytes: encoded, nanoseconds: 40_000 + 0.2 * Double(encoded)))
        }
        let costs = try #require(DeviceCalibration.fitted(decodes, reads: reads, width: 3))
        #expect(abs(costs.decodeFixedNanoseconds - 300_000) < 1 && abs(costs.decodeLibvipsFixedNanoseconds - 5_000_000) < 1)
        #expect(abs(costs.decodeNanosecondsPerEncodedByte - 4) < 1e-6 && abs(costs.decodeNanosecondsPerDecodedByte - 1.5) < 1e-6)
        #expect(abs(costs.decodeNanosecondsPerLoadedPixel - 2.5) < 1e-6 && abs(costs.decodeNanosecondsPerResizedPixel - 30) < 1e-6)
        #expect(abs(costs.decodeNanosecondsPerBetweenPassesPixel - 12) < 1e-6)
        #expect(abs(costs.diskReadNanosecondsPerFile - 40_000) < 1e-3 && abs(costs.diskReadNanosecondsPerByte - 0.2) < 1e-9)
        #expect(costs.decodeWidth == 3)
        #expect(DeviceCalibration.medianError(of: costs, on: decodes) < 1e-5)  // the model's whole nanoseconds
        #expect(DeviceCalibration.medianError(of: .thisMachine, on: decodes) > 0.1)
    }

    @Test("no part comes out negative: times that fall as the encoded bytes grow give that part nothing")
    func nonNegative() throws {
        let decodes = (0..<20).map {
            DeviceCalibration.Decode(encodedBytes: 1_000 * ($0 + 1), decodedBytes: 5_000 + 100 * ($0 % 4), nanoseconds: 1_000_000 - 10_000 * Double($0))
        }
        let costs = try #require(DeviceCalibration.fitted(decodes, width: 2))
        #expect(costs.decodeNanosecondsPerEncodedByte == 0)
        #expect(costs.decodeFixedNanoseconds >= 0 && costs.decodeNanosecondsPerDecodedByte >= 0)
        #expect(DeviceCalibration.medianError(of: costs, on: decodes) < 0.1)
        // Too few reads: the disk's costs stay the base's.
        #expect(costs.diskReadNanosecondsPerFile == DeviceCosts.thisMachine.diskReadNanosecondsPerFile)
    }

    @Test("too few decodes fit nothing")
    func tooFew() {
        let decodes = (0..<(DeviceCalibration.fewestDecodes - 1)).map { DeviceCalibration.Decode(encodedBytes: 1_000 + $0, decodedBytes: 5_000, nanoseconds: 1e6) }
        #expect(DeviceCalibration.fitted(decodes, width: 2) == nil)
    }
}
