/// Waits for `condition`, looking every 10 ms, at most `limit` / 10 ms times: whether it came
/// true. A test waits for the state it needs this way rather than sleeping a guess. The bound
/// counts looks, not wall time: on a machine whose cores other tests saturate, the task that
/// makes the condition true may wait long for a thread, and its wait is not the code's delay.
public func eventually(within limit: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    for _ in 0..<max(1, Int(limit / .milliseconds(10))) {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
