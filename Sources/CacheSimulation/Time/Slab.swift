/// Values in numbered places, a place reused once its value is removed, so a run that keeps a
/// few things in flight at a time allocates for the most it held at once, not for each. A free
/// place keeps its last value until it is reused: no optional to wrap and unwrap on the clock's
/// every step.
struct Slab<Element> {
    private var places: [Element] = []
    private var free: [Int32] = []

    /// Puts `element` in a free place, or a new one: returns its place.
    mutating func insert(_ element: Element) -> Int32 {
        if !free.isEmpty {
            let place = free.removeLast()
            places[Int(place)] = element
            return place
        }
        places.append(element)
        return Int32(places.count - 1)
    }

    /// Takes the value out of `place`, which is then free.
    mutating func remove(_ place: Int32) -> Element {
        assert(!free.contains(place), "place \(place) holds nothing")
        free.append(place)
        return places[Int(place)]
    }

    subscript(place: Int32) -> Element {
        get { places[Int(place)] }
        set { places[Int(place)] = newValue }
    }

    /// Every value held, in place order.
    var values: [Element] {
        let freed = Set(free)
        return places.indices.filter { !freed.contains(Int32($0)) }.map { places[$0] }
    }

    mutating func removeAll() {
        places.removeAll()
        free.removeAll()
    }
}
