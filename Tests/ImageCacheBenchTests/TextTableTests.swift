import Bench
import Testing
import CacheSimulation

@Suite struct TextTableTests {
    @Test("columns are padded to the widest cell, numbers right-aligned")
    func alignment() {
        var table = TextTable([("name", .left), ("ms", .right)])
        table.append(["a", "1.5"])
        table.append(["longer", "12.25"])
        #expect(table.render() == """
            name       ms
            ------  -----
            a         1.5
            longer  12.25
            """)
    }

    @Test func medianOfEvenAndOddSamples() {
        #expect(Statistics.median([3, 1, 2]) == 2)
        #expect(Statistics.median([4, 1, 3, 2]) == 2.5)
        #expect(Statistics.median([]).isNaN)
    }
}
