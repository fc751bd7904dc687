@_spi(Simulation) @testable import CacheEngine
import Foundation
import Testing

@Suite("Arrays in huge pages")
struct HugePagesTests {
    @Test("hold the prefix, then the filler, at every size", arguments: [0, 5, 3_000_000])
    func contents(prefixLength: Int) {
        for count in [prefixLength, prefixLength + 7, prefixLength + 1_500_000] {
            var random = SplitMix64(seed: UInt64(count))
            let prefix = (0..<prefixLength).map { _ in random.next() }
            let array = [UInt64].inHugePages(count: count, copying: prefix, filledWith: 42)
            #expect(array.count == count)
            #expect(Array(array[..<prefixLength]) == prefix)
            #expect(array[prefixLength...].allSatisfy { $0 == 42 })
        }
    }

    @Test("with room to grow: the prefix alone, and appends up to the room move nothing", arguments: [0, 5, 3_000_000])
    func room(prefixLength: Int) {
        let prefix = (0..<prefixLength).map { UInt64($0) &* 0x9E37_79B9 }
        var array = [UInt64].inHugePages(capacity: prefixLength + 1_500_000, copying: prefix)
        #expect(array == prefix && array.capacity >= prefixLength + 1_500_000)
        let start = array.withUnsafeBufferPointer { $0.baseAddress }
        array.append(contentsOf: repeatElement(7, count: 1_500_000))
        #expect(array.withUnsafeBufferPointer { $0.baseAddress } == start)
        #expect(array[prefixLength...].allSatisfy { $0 == 7 } && array.count == prefixLength + 1_500_000)
    }

    /// Where the kernel has transparent huge pages, a large array's memory carries the
    /// advice: the mapping holding its middle has the `hg` flag in smaps (the advice
    /// splits off the array's ends, short of a 2 MiB boundary). Whether pages are then
    /// backed by huge pages is the kernel's choice (memory fragmentation, its defrag
    /// setting), so that is not asserted: a CI machine once granted none.
    @Test("a large array's memory is advised as huge pages where the kernel has them")
    func advisedAsHugePages() throws {
        let setting = (try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8)) ?? ""
        guard setting.contains("[always]") || setting.contains("[madvise]") else { return }
        let array = [UInt64].inHugePages(count: 4 << 20, filledWith: 1)   // 32 MiB
        let middle = array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + $0.count / 2) }
        let flags = try Self.vmFlags(mappingHolding: middle)
        #expect(flags.contains("hg"), "the mapping holding a 32 MiB array has flags \(flags)")
        #expect(array.reduce(0, +) == UInt64(array.count))
    }

    /// The `VmFlags` of the mapping in /proc/self/smaps whose range holds `address`.
    static func vmFlags(mappingHolding address: UInt) throws -> [Substring] {
        // Read to the end: /proc files report a size of 0.
        let data = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps")).readDataToEndOfFile()
        let smaps = String(decoding: data, as: UTF8.self)
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            let bounds = first.split(separator: "-")
            if bounds.count == 2, let low = UInt(bounds[0], radix: 16), let high = UInt(bounds[1], radix: 16) {
                inMapping = low <= address && address < high
            } else if inMapping, first == "VmFlags:" {
                return Array(fields.dropFirst())
            }
        }
        return []
    }
}
