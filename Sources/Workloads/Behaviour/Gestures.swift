/// The gestures every app shares, chosen by the user's behaviour.
extension UserSession {
    public enum Gesture: CaseIterable { case drag, fling, backUp, pause }

    public func pickGesture() -> Gesture {
        [.drag, .fling, .backUp, .pause][random.weighted([
            behaviour.dragWeight, behaviour.flingWeight, behaviour.backUpWeight, 1.5,
        ])]
    }

    /// Browses `feed` with one gesture: a drag, a fling (cells that fly past
    /// are cancelled), a scroll back up over what was seen, or a pause to read.
    public func browse(_ feed: Feed, nearEnd: (() async throws -> Void)? = nil) async throws {
        switch pickGesture() {
        case .drag:
            let seconds = random.logNormal(median: behaviour.dragSeconds, sigma: 0.4)
            try await feed.scroll(by: random.logNormal(median: behaviour.dragSpeed, sigma: 0.4) * seconds,
                                  seconds: seconds, session: self, nearEnd: nearEnd)
        case .fling:
            try await feed.scroll(by: random.logNormal(median: behaviour.flingDistance, sigma: 0.5),
                                  seconds: random.logNormal(median: 0.7, sigma: 0.2), session: self, nearEnd: nearEnd)
        case .backUp:
            try await feed.scroll(by: -random.logNormal(median: screenHeight * 1.5, sigma: 0.7),
                                  seconds: random.logNormal(median: 1, sigma: 0.3), session: self)
        case .pause:
            pause(behaviour.pauseSeconds)
        }
    }

    /// Scrolls quickly back to the top (before a pull to refresh).
    public func returnToTop(_ feed: Feed) async throws {
        guard !feed.isAtTop else { return }
        try await feed.scroll(by: -feed.offset, seconds: 0.8, session: self)
    }

    /// The user's launches of the app: `body` runs each one until its time is up;
    /// between them the app is quit and relaunched (memory cold, disk warm).
    public func launches(_ body: (_ launch: Int, _ until: Int) async throws -> Void) async throws {
        let count = random.int(behaviour.launches)
        for launch in 0..<count {
            if launch > 0 { try relaunch(after: random.logNormal(median: behaviour.launchGapMinutes, sigma: 1)) }
            let until = time + Int(random.logNormal(median: behaviour.launchSeconds * 1000, sigma: 0.5))
            warningAt = random.chance(behaviour.memoryWarningChance) ? time + random.int(0...max(1, until - time)) : nil
            try await body(launch, until)
            // A warning due during the last gesture still arrives before the app is quit.
            if warningAt != nil { warningAt = time }
            try tick()
        }
    }

    /// Called between actions: delivers the launch's memory warning once its time has come.
    public func tick() throws {
        guard let due = warningAt, time >= due else { return }
        warningAt = nil
        try memoryWarning(critical: random.chance(0.2))
    }
}
