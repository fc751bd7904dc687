/// How one kind of user moves through an app. Figures are medians of
/// log-normal draws; sources for each choice are in `datasets/README.md`.
public struct UserBehaviour: Sendable {
    /// Launches of the app by one user (the first cold, later ones disk-warm).
    public var launches: ClosedRange<Int>
    /// Time between two launches of the same user.
    public var launchGapMinutes: Double
    /// Time spent in the app per launch.
    public var launchSeconds: Double
    /// A slow drag, in points per second, and how long it lasts.
    public var dragSpeed: Double
    public var dragSeconds: Double
    /// A fling covers this many points in about 0.6 s.
    public var flingDistance: Double
    /// Reading pause between gestures.
    public var pauseSeconds: Double
    /// Relative weights of the shared gestures.
    public var dragWeight: Double
    public var flingWeight: Double
    public var backUpWeight: Double
    /// Chance per launch of a system memory warning.
    public var memoryWarningChance: Double

    public static let scroller = UserBehaviour(
        launches: 1...4, launchGapMinutes: 300, launchSeconds: 75,
        dragSpeed: 700, dragSeconds: 1.2, flingDistance: 2600, pauseSeconds: 2.2,
        dragWeight: 5, flingWeight: 2.5, backUpWeight: 1, memoryWarningChance: 0.08)
}
