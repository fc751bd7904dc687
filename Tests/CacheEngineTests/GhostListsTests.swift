@testable import CacheEngine
import Testing

@Suite("GhostLists (ARC's B1 and B2)")
struct GhostListsTests {
    /// The lists as two plain arrays in push order.
    struct Model {
        var lists: [[(fingerprint: UInt64, size: Int)]] = [[], []]

        mutating func push(_ fingerprint: UInt64, size: Int, to list: Int) {
            _ = remove(fingerprint)
            lists[list].append((fingerprint, size))
        }

        mutating func remove(_ fingerprint: UInt64) -> Int? {
            for list in 0..<2 {
                if let position = lists[list].firstIndex(where: { $0.fingerprint == fingerprint }) {
                    lists[list].remove(at: position)
                    return list
                }
            }
            return nil
        }

        func size(_ list: Int) -> Int { lists[list].reduce(0) { $0 + $1.size } }
    }

    /// Random pushes (keys already remembered among them), removals and drops of the oldest
    /// over few keys, so members leave from the middle often: after each, both lists' sizes and
    /// emptiness are the model's, a removal names the model's list, and every drop of the oldest
    /// leaves what the model's does.
    @Test("pushes, removals and drops of the oldest agree with two plain lists", arguments: [8, 300])
    func agreesWithModel(keys: Int) {
        var random = SplitMix64(seed: UInt64(keys))
        var ghosts = GhostLists(), model = Model()
        for step in 0..<60_000 {
            let fingerprint = random.next() % UInt64(keys) &* 0x9E37_79B9_7F4A_7C15
            let list = Int(random.next() % 2)
            switch random.next() % 4 {
            case 0, 1:
                let size = Int(random.next() % 5)
                ghosts.push(fingerprint, size: size, to: GhostLists.List(rawValue: list)!)
                model.push(fingerprint, size: size, to: list)
            case 2:
                let removed = ghosts.remove(fingerprint)
                #expect(removed?.rawValue == model.remove(fingerprint), "step \(step)")
            default:
                ghosts.removeOldest(of: GhostLists.List(rawValue: list)!)
                if !model.lists[list].isEmpty { model.lists[list].removeFirst() }
            }
            for list in 0..<2 {
                let name = GhostLists.List(rawValue: list)!
                guard ghosts.size(of: name) == model.size(list), ghosts.isEmpty(name) == model.lists[list].isEmpty else {
                    Issue.record("step \(step): list \(list) holds \(ghosts.size(of: name)), the model \(model.size(list))")
                    return
                }
            }
        }
        // At the end each list still remembers exactly the model's keys.
        for list in 0..<2 {
            for (fingerprint, _) in model.lists[list] {
                #expect(ghosts.remove(fingerprint)?.rawValue == list)
            }
            #expect(ghosts.isEmpty(GhostLists.List(rawValue: list)!))
        }
    }

    /// A list whose oldest member stays while other keys come and go: the dead places behind
    /// it are reclaimed, so memory follows the two live members, not the 100,000 that passed.
    @Test("a list whose oldest stays does not grow with the keys that pass through it")
    func memoryFollowsLiveMembers() {
        var ghosts = GhostLists()
        ghosts.push(1, size: 1, to: .frequent)
        for key in UInt64(2)..<100_002 {
            ghosts.push(key, size: 1, to: .frequent)
            #expect(ghosts.remove(key) == .frequent)
        }
        ghosts.push(7, size: 3, to: .frequent)
        #expect(ghosts.size(of: .frequent) == 4)
        #expect(ghosts.storedMembers < 200, "\(ghosts.storedMembers) places for 2 keys")
        ghosts.removeOldest(of: .frequent)
        #expect(ghosts.remove(1) == nil && ghosts.remove(7) == .frequent)
    }
}
