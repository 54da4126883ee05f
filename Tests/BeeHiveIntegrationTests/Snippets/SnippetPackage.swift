import Foundation

/// A package that a document shows, as a reader would copy it: a manifest (a code block that starts with
/// `// swift-tools-version`) and the files of the code blocks after it that start with their path
/// (`// Sources/App/main.swift`), up to the next manifest. A package may hold a package of its own in a folder, which
/// it depends on by path (`.package(path: "ShopAPI")`): that package's manifest is a block that starts with
/// `// swift-tools-version` and then its path (`// ShopAPI/Package.swift`), and its files start with theirs
/// (`// ShopAPI/Sources/ShopAPI/ShopAPI.swift`).
struct SnippetPackage: CustomStringConvertible {
    /// The URL every document gives for this repository, and the identity SwiftPM gives it.
    static let documentedURL = "https://github.com/<owner>/beehive-swift-linux.git"
    static let identity = "beehive-swift-linux"

    /// The document and the line of the manifest's code block.
    let document: String
    let line: Int
    /// The manifest as written (URL dependency).
    let manifest: String
    /// The files as written, by their path in the package.
    let files: [(path: String, text: String)]

    var description: String { "\(document):\(line)" }

    /// The package's name (`Package(name: "App", …)`).
    var name: String {
        guard let range = manifest.range(of: #"name: "([^"]+)""#, options: .regularExpression) else { return "?" }
        return String(manifest[range].dropFirst("name: \"".count).dropLast())
    }

    /// The executable targets: the targets of the files named `Sources/<Target>/main.swift`.
    var executables: [String] {
        files.compactMap { file in
            let parts = file.path.split(separator: "/")
            return parts.count == 3 && parts[0] == "Sources" && parts[2] == "main.swift" ? String(parts[1]) : nil
        }
    }

    /// The manifest of the path form: the URL dependency replaced by the local clone that the comment under it
    /// gives (`// or a local clone: .package(path: "../beehive-swift-linux")`). Nil when the manifest gives none.
    var pathManifest: String? {
        var lines = manifest.components(separatedBy: "\n")
        guard let commentIndex = lines.firstIndex(where: { $0.contains("// or a local clone: ") }), commentIndex > 0,
            let urlCall = lines[commentIndex - 1].range(
                of: #"\.package\(url: "[^"]+"[^)]*\)"#, options: .regularExpression)
        else { return nil }
        var pathCall = lines[commentIndex].components(separatedBy: "// or a local clone: ")[1]
        if pathCall.hasSuffix(",") { pathCall.removeLast() }
        lines[commentIndex - 1].replaceSubrange(urlCall, with: pathCall)
        lines.remove(at: commentIndex)
        return lines.joined(separator: "\n")
    }

    /// Every package of the Markdown document at `path` (named `document` in messages). Files shown before the
    /// document's first manifest (a README that starts with the code) belong to that manifest.
    static func packages(inDocument path: URL, named document: String) throws -> [SnippetPackage] {
        var packages: [SnippetPackage] = []
        var pending: [(path: String, text: String)] = []
        for block in CodeBlock.blocks(in: try String(contentsOf: path, encoding: .utf8)) {
            let lines = block.text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
            let firstLine = String(lines.first ?? "")
            let secondLine = lines.count > 1 ? String(lines[1]) : ""
            let isManifest = firstLine.hasPrefix("// swift-tools-version")
            // The manifest of a package in a folder of this one: `// swift-tools-version…`, `// ShopAPI/Package.swift`.
            let nested =
                isManifest ? secondLine.range(of: #"^// [^ :]+/Package\.swift$"#, options: .regularExpression) : nil
            let sources =
                isManifest ? nil : firstLine.range(of: #"^// ([^ :/]+/)*Sources/[^ :]+"#, options: .regularExpression)
            if isManifest && nested == nil {
                let files = packages.isEmpty ? pending : []
                packages.append(
                    SnippetPackage(document: document, line: block.line, manifest: block.text, files: files))
            } else if let named = nested.map({ secondLine[$0] }) ?? sources.map({ firstLine[$0] }) {
                let file = (String(named.dropFirst("// ".count)), block.text)
                if let last = packages.popLast() {
                    packages.append(
                        SnippetPackage(
                            document: last.document, line: last.line, manifest: last.manifest,
                            files: last.files + [file]))
                } else {
                    pending.append(file)
                }
            }
        }
        return packages
    }

    /// Writes the package into `folder`, with `manifest`: its files, and for each C target an `include/` folder
    /// with an empty header, as the documents say a C target needs.
    func write(to folder: URL, manifest: String) throws {
        let manager = FileManager.default
        try? manager.removeItem(at: folder)
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        for file in files {
            let url = folder.appendingPathComponent(file.path)
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.text.utf8).write(to: url)
            if file.path.hasSuffix(".c") {
                let include = url.deletingLastPathComponent().appendingPathComponent("include")
                try manager.createDirectory(at: include, withIntermediateDirectories: true)
                let target = url.deletingLastPathComponent().lastPathComponent
                try Data().write(to: include.appendingPathComponent("\(target).h"))
            }
        }
    }
}

/// A fenced code block of a Markdown document.
struct CodeBlock {
    /// The line of the opening fence, from 1.
    let line: Int
    /// The language after the fence (`swift`, `c`, or empty).
    let language: String
    /// The lines between the fences.
    let text: String

    /// Every fenced code block of `markdown`, in order.
    static func blocks(in markdown: String) -> [CodeBlock] {
        var blocks: [CodeBlock] = []
        var open: (line: Int, language: String, lines: [String])?
        for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    blocks.append(
                        CodeBlock(
                            line: block.line, language: block.language, text: block.lines.joined(separator: "\n") + "\n"
                        ))
                    open = nil
                } else {
                    block.lines.append(line)
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                open = (index + 1, String(trimmed.dropFirst(3)), [])
            }
        }
        return blocks
    }
}
