import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A `Synchronization.Mutex` that also tells ThreadSanitizer about the
/// happens-before edges it creates.
///
/// On Linux, Swift 6.3's `Mutex` waits on a futex directly, which TSan does not
/// model: every access under the lock is reported as a race (a ten-line program
/// incrementing a dictionary under `withLock` from two threads shows it). The
/// annotations make TSan runs meaningful; without the TSan runtime they cost
/// one test of a flag the lock holds.
public struct Locked<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    @usableFromInline let mutex: Mutex<Value>
    /// A private address that names this lock to TSan; none without the TSan runtime,
    /// so a lock made per chunk or per request allocates nothing in a normal build.
    @usableFromInline let token: UnsafeMutableRawPointer?

    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
        token = ThreadSanitizer.isLoaded ? UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1) : nil
    }

    deinit { token?.deallocate() }

    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            if let token { ThreadSanitizer.acquire(token) }
            defer { if let token { ThreadSanitizer.release(token) } }
            return try body(&value)
        }
    }
}

/// The TSan runtime's annotation entry points, when it is loaded.
@usableFromInline
enum ThreadSanitizer {
    @usableFromInline typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    @usableFromInline static let acquireFunction = lookup("__tsan_acquire")
    @usableFromInline static let releaseFunction = lookup("__tsan_release")

    private static func lookup(_ name: String) -> Annotation? {
        dlsym(nil, name).map { unsafeBitCast($0, to: Annotation.self) }
    }

    @usableFromInline static var isLoaded: Bool { acquireFunction != nil && releaseFunction != nil }

    @inlinable
    static func acquire(_ address: UnsafeMutableRawPointer) { acquireFunction?(address) }

    @inlinable
    static func release(_ address: UnsafeMutableRawPointer) { releaseFunction?(address) }
}

/// A `Locked` value several owners share (a closure and an object, say).
public final class SharedLocked<Value>: Sendable {
    @usableFromInline let locked: Locked<Value>

    public init(_ value: sending Value) { locked = Locked(value) }

    /// Inlinable, so callers in other modules get it specialised (unspecialised, each
    /// call looked up the lock's generic type metadata).
    @inlinable
    public func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try locked.withLock(body)
    }
}
