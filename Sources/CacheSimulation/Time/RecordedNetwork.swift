import Foundation

/// A recording's own network (`--network recorded`): the profile fitted to the fetch times it kept
/// (a HAR entry's `time`: queueing, connection, request and transfer), and how far the
/// simulator's link under that profile is from them, fetch by fetch. The fetches replay through
/// `NetworkLink`, the link the clock uses, at their recorded start times, to their hosts, with
/// their sizes: a check of the network model against timings nobody here made.
public struct RecordedNetwork: Sendable, Equatable {
    /// The fitted profile, named "recorded".
    public let profile: NetworkProfile
    /// The fetch times it was fitted to, and its error on them.
    public let agreement: Agreement

    public struct Agreement: Sendable, Codable, Equatable {
        public var fetches: Int
        /// Mean absolute percentage error of the simulated fetch times against the recorded ones.
        public var mape: Double
        /// Spearman's rank correlation between them.
        public var spearman: Double
        public var recordedP50: Double
        public var simulatedP50: Double
    }

    /// Fetches shorter than this (milliseconds) are left out: an answer within a millisecond came
    /// from a cache, not a network, and a percentage of nothing has no meaning.
    public static let shortestMilliseconds = 1
    /// With fewer usable fetch times than this, nothing is fitted.
    public static let fewestFetches = 5
    /// The search replays at most this many fetches (the first) per candidate, so a long
    /// recording fits in seconds; the agreement is over all of them.
    static let mostFittedFetches = 2_000
    /// The search's grids: round trips from 1 ms to 2 s, downlinks from 64 kbit/s to 1 Gbit/s,
    /// each a factor of 1.2 apart (the fit is as fine as the grid).
    static let roundTrips = grid(from: 1, to: 2_000)
    static let downlinks = grid(from: 64_000, to: 1e9)

    struct Fetch {
        let start: UInt64
        let host: Int32
        let bytes: Int
        let recorded: Double
        /// The recording's account of its connection (`RecordedFetch.connected`).
        let connected: Bool?
    }

    /// The profile that brings the link's times closest to the recorded ones (the least mean
    /// absolute percentage error, the figure it reports: on the real exports it gave a lower one
    /// and a higher ρ than the least mean absolute log ratio did), over HTTP/1.1
    /// with URLSession's and browsers' 6 connections a host: first one round trip and downlink
    /// for all, then each host its own round trip (hosts lie at their own distances: a CDN a few
    /// milliseconds away, an origin a hundred), then the downlink again. nil when fewer than
    /// `fewestFetches` fetch times are usable.
    public static func fit(_ workload: RecordedWorkload) -> RecordedNetwork? {
        let (fetches, hostNames) = fetches(of: workload)
        guard fetches.count >= fewestFetches else { return nil }
        let sample = Array(fetches.prefix(mostFittedFetches))
        func profile(_ rtt: Double, _ down: Double, _ hosts: [Double]? = nil) -> NetworkProfile {
            var profile = NetworkProfile(name: "recorded", rttMilliseconds: rtt, downlinkBitsPerSecond: down, source: "")
            profile.hostRoundTrips = hosts.map { Dictionary(uniqueKeysWithValues: zip(hostNames, $0)) }
            return profile
        }
        func error(_ profile: NetworkProfile) -> Double {
            zip(simulate(sample, hostNames: hostNames, on: profile), sample).reduce(0.0) { $0 + abs($1.0 - $1.1.recorded) / $1.1.recorded }
        }
        var best = (error: Double.infinity, rtt: 0.0, down: 0.0)
        for rtt in roundTrips {
            for down in downlinks {
                let candidate = error(profile(rtt, down))
                if candidate < best.error { best = (candidate, rtt, down) }
            }
        }
        var hosts = Array(repeating: best.rtt, count: hostNames.count)
        var down = best.down, lowest = best.error
        for _ in 0..<2 {
            for host in hosts.indices {
                for rtt in roundTrips {
                    var trial = hosts
                    trial[host] = rtt
                    let candidate = error(profile(best.rtt, down, trial))
                    if candidate < lowest { (lowest, hosts) = (candidate, trial) }
                }
            }
            for rate in downlinks {
                let candidate = error(profile(best.rtt, rate, hosts))
                if candidate < lowest { (lowest, down) = (candidate, rate) }
            }
        }
        // A host the recording never fetched from gets the round trip most of its fetches saw.
        let typical = Statistics.median(fetches.map { hosts[Int($0.host)] })
        var fitted = profile(typical, down, hosts)
        fitted.source = "fitted to \(workload.name)'s \(fetches.count) recorded fetch times from \(hostNames.count) hosts"
        return RecordedNetwork(profile: fitted, agreement: agreement(fetches, hostNames: hostNames, on: fitted))
    }

    /// The fetch times a fit can use: those of a millisecond or more.
    public static func usableFetches(_ workload: RecordedWorkload) -> Int {
        workload.recordedFetches.count { $0.milliseconds >= shortestMilliseconds }
    }

    /// The error of `profile` on the recording's usable fetch times; nil with too few.
    public static func agreement(_ workload: RecordedWorkload, on profile: NetworkProfile) -> Agreement? {
        let (fetches, hostNames) = fetches(of: workload)
        return fetches.count >= fewestFetches ? agreement(fetches, hostNames: hostNames, on: profile) : nil
    }

    static func agreement(_ fetches: [Fetch], hostNames: [String], on profile: NetworkProfile) -> Agreement {
        let simulated = simulate(fetches, hostNames: hostNames, on: profile), recorded = fetches.map(\.recorded)
        let mape = zip(simulated, recorded).reduce(0.0) { $0 + abs($1.0 - $1.1) / $1.1 } / Double(fetches.count)
        return Agreement(
            fetches: fetches.count, mape: mape, spearman: Statistics.spearman(simulated, recorded),
            recordedP50: Statistics.median(recorded), simulatedP50: Statistics.median(simulated))
    }

    /// The recording's usable fetches, and the hosts they name (authorities, as the clock pools
    /// connections), by the ids the fetches carry.
    static func fetches(of workload: RecordedWorkload) -> (fetches: [Fetch], hostNames: [String]) {
        var hosts: [Substring: Int32] = [:], names: [String] = []
        let fetches = workload.recordedFetches.compactMap { fetch -> Fetch? in
            guard fetch.milliseconds >= shortestMilliseconds else { return nil }
            let request = workload.requests[fetch.request]
            let name = RecordedWorkload.host(of: workload.urls[Int(request.url)])
            let host = hosts[name] ?? Int32(hosts.count)
            if hosts[name] == nil {
                hosts[name] = host
                names.append(String(name))
            }
            return Fetch(start: request.time, host: host, bytes: request.bytes, recorded: Double(fetch.milliseconds), connected: fetch.connected)
        }
        return (fetches, names)
    }

    /// Each fetch's time on the link, milliseconds, every fetch asked for at its recorded start.
    static func simulate(_ fetches: [Fetch], hostNames: [String], on profile: NetworkProfile) -> [Double] {
        var link = NetworkLink(profile, hostNames: hostNames)
        var times = [Double](repeating: 0, count: fetches.count)
        let record = { (id: Int, end: UInt64) in times[id] = Double(end - fetches[id].start) / 1e6 }
        for (index, fetch) in fetches.enumerated() {
            let start = max(fetch.start, link.now)
            link.advance(to: start, finished: record)
            link.start(index, host: fetch.host, bytes: fetch.bytes, at: start, connected: fetch.connected)
        }
        link.advance(to: UInt64.max / 2, finished: record)
        return times
    }

    static func grid(from low: Double, to high: Double) -> [Double] {
        var values: [Double] = []
        var value = low
        while value <= high * 1.0001 {
            values.append(value)
            value *= 1.2
        }
        return values
    }
}
