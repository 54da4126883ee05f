extension HiveReport {
    /// The wiring as a Graphviz DOT graph: each source (an image, a file, code) points to its registrations, each
    /// registration to its service; a registration that waits behind a higher rank is dashed, one that cannot be
    /// created is red; modules are grouped by level, in priority order; routes point to their handlers; problems are
    /// red notes beside the source they name. `dot -Tsvg` draws it.
    ///
    /// ```swift
    /// try Hive.shared.report().graphviz.write(toFile: "hive.dot", atomically: true, encoding: .utf8)
    /// // dot -Tsvg hive.dot -o hive.svg
    /// ```
    public var graphviz: String {
        var graph = DOTGraph()
        for service in services {
            let origin = graph.node(for: service.source, plugin: service.plugin)
            var label = service.implementation
            if let name = service.name { label += "\\n[\(name)]" }
            if let rank = service.rank { label += "\\nrank \(rank)" }
            label += "\\n\(service.state.rawValue)"
            let style: String
            switch service.state {
            case .waiting: style = "style=dashed"
            case .unresolvable: style = "color=red, fontcolor=red"
            default: style = "style=solid"
            }
            let registration = graph.add("registration", "shape=box, \(style), label=\(DOTGraph.quoted(label))")
            graph.edge(origin, registration)
            let protocolNode = graph.named(
                "service " + service.service, "shape=ellipse, label=\(DOTGraph.quoted(service.service))")
            graph.edge(registration, protocolNode, service.state == .waiting ? "style=dashed" : "")
        }
        for (level, modules) in Dictionary(grouping: modules, by: \.level).sorted(by: { $0.key < $1.key }) {
            let levelNode = graph.add("level", "shape=folder, label=\(DOTGraph.quoted("modules, level \(level)"))")
            for module in modules.sorted(by: { $0.priority > $1.priority }) {
                let node = graph.add(
                    "module",
                    "shape=component, label=\(DOTGraph.quoted("\(module.module)\\npriority \(module.priority)"))")
                graph.edge(graph.node(for: module.source, plugin: module.plugin), node)
                graph.edge(levelNode, node, "style=dotted")
            }
        }
        for route in routes {
            let node = graph.add("route", "shape=cds, label=\(DOTGraph.quoted(route.pattern))")
            graph.edge(graph.node(for: route.source, plugin: route.plugin), node)
            graph.edge(
                node, graph.named("handler " + route.handler, "shape=box, label=\(DOTGraph.quoted(route.handler))"))
        }
        for problem in problems {
            let node = graph.add(
                "problem",
                "shape=note, color=red, fontcolor=red, label=\(DOTGraph.quoted("\(problem.code)\\n\(problem.message)"))"
            )
            if let source = problem.source { graph.edge(graph.node(for: source, plugin: nil), node, "color=red") }
        }
        return graph.text
    }
}

/// A DOT graph under construction: nodes by id, each named node once.
private struct DOTGraph {
    private var lines: [String] = [
        "digraph hive {", "    rankdir=LR;", "    node [fontname=\"Helvetica\", fontsize=10];",
    ]
    private var named: [String: String] = [:]
    private var count = 0

    var text: String { (lines + ["}"]).joined(separator: "\n") + "\n" }

    /// A new node.
    mutating func add(_ prefix: String, _ attributes: String) -> String {
        count += 1
        let id = "\(prefix)\(count)"
        lines.append("    \(id) [\(attributes)];")
        return id
    }

    /// The node named `key`, added the first time.
    mutating func named(_ key: String, _ attributes: String) -> String {
        if let id = named[key] { return id }
        let id = add("n", attributes)
        named[key] = id
        return id
    }

    /// The node of a registration's origin: its image (or plugin), file, or code.
    mutating func node(for source: HiveReport.Source, plugin: String?) -> String {
        if let image = source.image {
            let title = plugin.map { "plugin \($0)" } ?? "image \(image)"
            return named("image " + image, "shape=box3d, label=\(Self.quoted(title))")
        }
        if let file = source.file { return named("file " + file, "shape=note, label=\(Self.quoted("file \(file)"))") }
        return named("code", "shape=box3d, label=\"code\"")
    }

    mutating func edge(_ from: String, _ to: String, _ attributes: String = "") {
        lines.append("    \(from) -> \(to)" + (attributes.isEmpty ? ";" : " [\(attributes)];"))
    }

    /// `text` as a DOT string: quoted, with `"` and `\` escaped (a `\n` written by the caller stays a line break).
    static func quoted(_ text: String) -> String {
        var result = "\""
        var characters = text[...]
        while let character = characters.popFirst() {
            if character == "\\", characters.first == "n" {
                result += "\\n"
                characters.removeFirst()
            } else if character == "\\" || character == "\"" {
                result += "\\" + String(character)
            } else if character == "\n" {
                result += "\\n"
            } else {
                result.append(character)
            }
        }
        return result + "\""
    }
}
