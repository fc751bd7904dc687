/// A string that equals another only byte for byte: Swift's `String` equality is
/// canonical equivalence, which makes `café` in NFC and in NFD one URL, while a server
/// (and an app's `NSString` keys) holds them apart. Tables that intern URLs or keys use it.
public struct ByteExactString: Hashable, Sendable {
    public let string: String

    public init(_ string: String) { self.string = string }

    public static func == (a: ByteExactString, b: ByteExactString) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }

    public func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
