import Foundation
import CacheSimulation
import OriginServer
import Workloads

/// A figure of a service's real image population that the app models should reproduce.
public struct FidelityTarget: Codable, Sendable, Equatable {
    /// How a generated figure is judged against it.
    public enum Kind: String, Codable, Sendable {
        /// A share of URLs or pictures: within 0.05 absolute.
        case share
        /// A count or a size: within 20% relative.
        case size
    }

    public var service: Service
    public var statistic: String
    public var kind: Kind
    public var value: Double
    /// The response files it was measured on.
    public var sources: [String]

    public func accepts(_ generated: Double) -> Bool {
        switch kind {
        case .share: abs(generated - value) <= 0.05
        case .size: value == 0 ? generated == 0 : abs(generated - value) / abs(value) <= 0.2
        }
    }
}

/// The targets file (`datasets/fidelity-targets.json`): numbers measured on the
/// services' real API responses, which are third-party and stay out of the project.
public struct FidelityTargets: Codable, Sendable, Equatable {
    public var command: String
    public var targets: [FidelityTarget]

    /// Measures every service's population in the response files under `directory`.
    public static func measure(realData directory: String, command: String) throws -> FidelityTargets {
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        var catalogue = URLCatalogue()
        for file in files { try catalogue.add(file: directory + "/" + file) }
        var targets: [FidelityTarget] = []
        for service in Service.allCases {
            let sources = Array(Set(catalogue.entries.filter { $0.service == service }.map { "\(service.rawValue)/\($0.file)" })).sorted()
            for figure in ImagePopulation(catalogue: catalogue, service: service).figures {
                targets.append(FidelityTarget(service: service, statistic: figure.statistic, kind: figure.kind, value: figure.value, sources: sources))
            }
        }
        return FidelityTargets(command: command, targets: targets)
    }

    /// The services these targets were measured for.
    public var services: [Service] { Service.allCases.filter { service in targets.contains { $0.service == service } } }

    /// These targets with `measured`'s in place of theirs for each service `measured` has; the
    /// other services' targets are kept, so measuring one service's responses changes only it.
    public func replacing(with measured: FidelityTargets) -> FidelityTargets {
        let replaced = Set(measured.services)
        return FidelityTargets(command: measured.command, targets: targets.filter { !replaced.contains($0.service) } + measured.targets)
    }
}

/// One app's generated figure against its target.
public struct FidelityRow: Codable, Sendable, Equatable {
    public var trace: String
    public var app: String
    public var service: Service
    public var statistic: String
    public var kind: FidelityTarget.Kind
    public var target: Double
    public var generated: Double
    /// Generated minus target: absolute for shares, relative for sizes.
    public var difference: Double
    public var withinTolerance: Bool
    public var sources: [String]
}

public enum Fidelity {
    /// The service an app's images come from.
    public static func service(ofApp app: String) -> Service? {
        switch app.lowercased().filter({ !$0.isWhitespace }) {
        case "articleproject", "headlines": .newsapi
        case "vanilladin": .aladin
        case "picterest": .unsplash
        case "mymarket": .openmarket
        default: nil
        }
    }

    /// A dataset's distinct image URLs, and per picture the largest size it was asked at (its original).
    public static func population(of workload: RecordedWorkload) -> ImagePopulation {
        var largest: [Int32: (width: Int, height: Int)] = [:]
        for request in workload.requests {
            let size = (Int(request.width), Int(request.height))
            if let known = largest[request.content], known.width * known.height >= size.0 * size.1 { continue }
            largest[request.content] = size
        }
        return ImagePopulation(urls: workload.urls, originals: largest.keys.sorted().map { largest[$0]! })
    }

    /// Statistics on which a dataset's requests differ from a response by design, and why: what
    /// an app asks for over many visits is not one snapshot of the pages. The model's own
    /// responses (`compare(_ sample:)`) are compared on them instead.
    public static func notComparableOnRequests(_ service: Service) -> [(statistics: Set<String>, reason: String)] {
        var excluded = [(statistics: Set(["items without an image"]), reason: "a trace holds the images asked for, not the items that had none")]
        switch service {
        case .unsplash:
            excluded.append((Set(urlShapeStatistics), "Picterest asks only for urls.raw, and a photo seen again comes back under a new ixid"))
        case .aladin:
            excluded.append((["URLs sharing their last path component with another", "URLs sharing their joined path with another"],
                             "the detail screen asks for cover500, which keeps the list cover's file name"))
        case .newsapi, .openmarket: break
        }
        return excluded
    }

    private static let urlShapeStatistics = [
        "URLs sharing their last path component with another", "URLs sharing their joined path with another",
        "URLs on the most common host", "URLs on the five most common hosts", "URLs with a query", "URLs whose identity is in the query",
        "URLs with extension jpg or jpeg", "URLs with extension png", "URLs with extension none",
    ]

    /// Every target of each workload's service that its requests can be compared on, against the
    /// workload's figure; a mix of apps gives none.
    public static func compare(_ workloads: [RecordedWorkload], targets: FidelityTargets) -> [FidelityRow] {
        var rows: [FidelityRow] = []
        for workload in workloads {
            guard let service = service(ofApp: workload.header.app) else { continue }
            let excluded = notComparableOnRequests(service).reduce(into: Set<String>()) { $0.formUnion($1.statistics) }
            let figures = population(of: workload).figures
            for target in targets.targets where target.service == service && !excluded.contains(target.statistic) {
                guard let figure = figures.first(where: { $0.statistic == target.statistic }) else { continue }
                rows.append(row(trace: workload.name, app: workload.header.app, target: target, generated: figure.value))
            }
        }
        return rows
    }

    /// The origin's own API pages (`ResponseSample`), read by the importer that reads the real
    /// responses, against every target: the model measured exactly as the data is.
    public static func compare(_ sample: ResponseSample, targets: FidelityTargets) throws -> [FidelityRow] {
        var catalogue = URLCatalogue()
        for page in sample.pages {
            try catalogue.add(data: page.json, file: page.name, service: Service(rawValue: page.service))
        }
        var rows: [FidelityRow] = []
        for service in Service.allCases {
            let figures = ImagePopulation(catalogue: catalogue, service: service).figures
            for target in targets.targets where target.service == service {
                guard let figure = figures.first(where: { $0.statistic == target.statistic }) else { continue }
                rows.append(row(trace: "origin pages", app: service.rawValue, target: target, generated: figure.value))
            }
        }
        return rows
    }

    private static func row(trace: String, app: String, target: FidelityTarget, generated: Double) -> FidelityRow {
        let difference = target.kind == .share ? generated - target.value
            : target.value == 0 ? 0 : (generated - target.value) / target.value
        return FidelityRow(
            trace: trace, app: app, service: target.service, statistic: target.statistic, kind: target.kind, target: target.value,
            generated: generated, difference: difference, withinTolerance: target.accepts(generated), sources: target.sources)
    }
}

extension ReportTables {
    public static func fidelity(_ rows: [FidelityRow], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("service", .left), ("statistic", .left), ("target", .right), ("generated", .right), ("difference", .right), ("verdict", .left),
        ])
        for row in rows {
            let isShare = row.kind == .share
            func value(_ figure: Double) -> String { isShare ? number(figure, 2, style) : number(figure, 0, style) }
            table.append([
                row.trace, row.service.rawValue, row.statistic, value(row.target), value(row.generated),
                style == .human ? (isShare ? String(format: "%+.2f", row.difference) : String(format: "%+.0f%%", row.difference * 100))
                    : String(format: "%.6f", row.difference),
                row.withinTolerance ? "ok" : "off",
            ])
        }
        return table
    }
}
