/// Values in numbered places, a place reused once its value is removed, so a run that keeps a
/// few things in flight at a time allocates for the most it held at once, not for each.
struct Slab<Element> {
    private var places: [Element?] = []
    private var free: [Int32] = []

    /// Puts `element` in a free place, or a new one: returns its place.
    mutating func insert(_ element: Element) -> Int32 {
        if let place = free.popLast() {
            places[Int(place)] = element
            return place
        }
        places.append(element)
        return Int32(places.count - 1)
    }

    /// Takes the value out of `place`, which is then free.
    mutating func remove(_ place: Int32) -> Element {
        guard let element = places[Int(place)] else { preconditionFailure("place \(place) holds nothing") }
        places[Int(place)] = nil
        free.append(place)
        return element
    }

    subscript(place: Int32) -> Element {
        get { places[Int(place)]! }
        set { places[Int(place)] = newValue }
    }

    /// Every value held, in place order.
    var values: [Element] { places.compactMap { $0 } }

    mutating func removeAll() {
        places.removeAll()
        free.removeAll()
    }
}
