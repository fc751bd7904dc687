import Yams
import Workloads

/// One YAML mapping read field by field, each read refused with its line when it is not what the
/// field takes, and the fields nobody read refused as unknown (`finish`): a misspelt setting is an
/// error, never a silent default.
struct YAMLFields {
    let path: String
    /// The mapping's own dotted name ("memory"), for messages; empty at the top.
    let name: String
    private let mapping: Node.Mapping
    private let line: Int
    /// The fields asked for, in order: what the mapping takes.
    private var asked: [String] = []

    init(_ node: Node, path: String, name: String = "") throws(PipelineFileError) {
        guard case .mapping(let mapping) = node else {
            throw PipelineFileError(
                path: path, line: node.mark?.line ?? 0,
                message: name.isEmpty ? "a pipeline file is a mapping of fields (name: …, memory: …)" : "\(name) is a mapping of fields")
        }
        self.path = path
        self.name = name
        self.mapping = mapping
        line = node.mark?.line ?? 0
    }

    func qualified(_ field: String) -> String { name.isEmpty ? field : name + "." + field }

    /// An error at `field`'s value (or at the mapping, when it is missing).
    func error(_ field: String, _ message: String) -> PipelineFileError {
        PipelineFileError(path: path, line: mapping[field]?.mark?.line ?? line, message: "\(qualified(field)): \(message)")
    }

    /// The field's node, marked as read.
    mutating func node(_ field: String) -> Node? {
        if !asked.contains(field) { asked.append(field) }
        return mapping[field]
    }

    /// The field's scalar text, or nil when the field is absent.
    mutating func text(_ field: String) throws(PipelineFileError) -> String? {
        guard let node = node(field) else { return nil }
        guard case .scalar(let scalar) = node else { throw error(field, "takes one value, not a list or a mapping") }
        return scalar.string
    }

    /// The field's text, required.
    mutating func required(_ field: String) throws(PipelineFileError) -> String {
        guard let text = try text(field) else {
            throw PipelineFileError(path: path, line: line, message: "\(qualified(field)) is missing")
        }
        return text
    }

    /// The field read by `parse`, whose error (any thrown error's description) is refused at the field's line.
    mutating func value<T>(_ field: String, _ parse: (String) throws -> T) throws(PipelineFileError) -> T? {
        guard let text = try text(field) else { return nil }
        do { return try parse(text) } catch { throw self.error(field, PlainFailure.clause(error)) }
    }

    /// A list of scalars (`[a, b]` or one per line), or nil when the field is absent.
    mutating func list(_ field: String) throws(PipelineFileError) -> [String]? {
        guard let node = node(field) else { return nil }
        guard case .sequence(let sequence) = node else { throw error(field, "takes a list") }
        return try sequence.map { (item: Node) throws(PipelineFileError) -> String in
            guard case .scalar(let scalar) = item else {
                throw PipelineFileError(path: path, line: item.mark?.line ?? line, message: "\(qualified(field)): each item is one value")
            }
            return scalar.string
        }
    }

    /// A nested mapping, or nil when absent; `none` written instead gives `.none`.
    mutating func mapping(_ field: String) throws(PipelineFileError) -> Nested? {
        guard let node = node(field) else { return nil }
        if case .scalar(let scalar) = node, scalar.string.lowercased() == "none" { return Nested.none }
        return .fields(try YAMLFields(node, path: path, name: qualified(field)))
    }

    /// A nested mapping that has no `none` (keys, loads), or nil when absent.
    mutating func section(_ field: String) throws(PipelineFileError) -> YAMLFields? {
        guard let node = node(field) else { return nil }
        return try YAMLFields(node, path: path, name: qualified(field))
    }

    enum Nested {
        case none
        case fields(YAMLFields)
    }

    /// Refuses the first field no read asked for, naming those the mapping takes.
    func finish() throws(PipelineFileError) {
        for key in mapping.keys {
            let text = key.scalar?.string ?? ""
            guard !asked.contains(text) else { continue }
            throw PipelineFileError(
                path: path, line: key.mark?.line ?? line,
                message: "unknown field \(qualified(text)); \(name.isEmpty ? "a pipeline" : name) takes \(asked.joined(separator: ", "))")
        }
    }
}
