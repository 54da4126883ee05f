import BeeHiveTestSupport
import Foundation
import Testing

/// The packages that the README and the DocC getting-started articles show, built as a reader would copy them.
///
/// Path form: beside a link named `beehive-swift-linux` to this checkout, each package is written with the manifest's
/// "or a local clone" line in place of its URL, built (one scratch folder for all, `.build-snippets/scratch`, so that
/// BeeHive and swift-syntax are built once; without debug information), and its programs run. URL form: the manifest
/// as written, its URL (`https://github.com/<owner>/…`, which cannot be fetched here) mirrored (`swift package config
/// set-mirror`) to a bare `file://` clone of this repository's HEAD; the package graph is resolved and loaded, which
/// checks every `.product(name:package:)`.
@Suite("The documents' snippets build as written", .serialized)
struct SnippetTests {
    static let documents = [
        "README.md",
        "Sources/BeeHive/Docs.docc/GettingStarted.md",
        "Sources/BeeHiveServiceLifecycle/Docs.docc/GettingStartedWithServiceLifecycle.md",
        // A host and a plugin on BeeHiveDynamic, with the protocols' package in a folder of its own.
        "Sources/BeeHive/Docs.docc/GettingStartedWithPlugins.md",
        // Last: the trait Macros rebuilds BeeHive's targets in the shared scratch folder, with swift-syntax.
        "Sources/BeeHiveMacros/Docs.docc/GettingStartedWithMacros.md",
    ]

    /// What each program prints, as its document says; a program that runs until a signal is built, not run.
    static let printed: [String: String?] = [
        "App": "track launch", "Tracker": "tracked launch", "Shop": "tea costs 3", "Server": nil,
        "Market": "the plugin registered 1 service(s)\ntea costs 4\nafter the retire: 0 price service(s)",
    ]

    /// Every package of every document.
    static let packages: [SnippetPackage] = documents.flatMap { document in
        (try? SnippetPackage.packages(
            inDocument: Command.repository.appendingPathComponent(document), named: document)) ?? []
    }

    static let work = Command.repository.appendingPathComponent(".build-snippets")

    @Test("every document shows a whole package that depends on this repository by URL and by path")
    func documentsShowPackages() throws {
        for document in Self.documents {
            let shown = Self.packages.filter { $0.document == document }
            #expect(!shown.isEmpty, "\(document) shows no package (a block that starts with // swift-tools-version)")
            for package in shown {
                #expect(package.manifest.contains(SnippetPackage.documentedURL), "\(package)")
                #expect(package.pathManifest != nil, "\(package): no '// or a local clone:' line under the URL")
                #expect(!package.executables.isEmpty, "\(package): no Sources/<Target>/main.swift block")
                #expect(Self.printed.keys.contains(package.name), "\(package): what does \(package.name) print?")
            }
        }
    }

    @Test("manifest fragments (a dependency or a target alone) name this repository's identity and real products")
    func manifestFragments() throws {
        let manifest = try String(
            contentsOf: Command.repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = Set(Self.captures(#"\.(?:library|executable)\(\s*name: "([^"]+)""#, in: manifest))
        #expect(products.contains("BeeHive") && products.contains("CBeeHive"), "\(products)")
        var fragments = 0
        for document in Self.documents + ["Sources/BeeHive/Docs.docc/Plugins.md"] {
            let text = try String(contentsOf: Command.repository.appendingPathComponent(document), encoding: .utf8)
            for block in CodeBlock.blocks(in: text) where block.language == "swift" {
                guard block.text.contains(".product(") || block.text.contains(".package(") else { continue }
                fragments += 1
                for url in Self.captures(#"\.package\(url: "([^"]+beehive[^"]*)""#, in: block.text) {
                    #expect(url == SnippetPackage.documentedURL, "\(document):\(block.line)")
                }
                let named = Self.captures(
                    #"\.product\(name: "([^"]+)", package: "beehive-swift-linux"\)"#, in: block.text)
                for product in named {
                    #expect(products.contains(product), "\(document):\(block.line): no product \(product)")
                }
                for package in Self.captures(#"\.product\(name: "[^"]+", package: "([^"]+)"\)"#, in: block.text)
                where package.lowercased().contains("beehive") {
                    #expect(package == SnippetPackage.identity, "\(document):\(block.line): package \(package)")
                }
            }
        }
        #expect(fragments >= Self.packages.count)
    }

    /// The first capture group of every match of `pattern` in `text`.
    static func captures(_ pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test("path form: each package builds as written, and its programs print what the document says")
    func pathForm() throws {
        let manager = FileManager.default
        try manager.createDirectory(at: Self.work, withIntermediateDirectories: true)
        let link = Self.work.appendingPathComponent(SnippetPackage.identity)
        try? manager.removeItem(at: link)
        try manager.createSymbolicLink(at: link, withDestinationURL: Command.repository)
        let scratch = Self.work.appendingPathComponent("scratch")
        for (index, package) in Self.packages.enumerated() {
            let manifest = try #require(package.pathManifest, "\(package)")
            let folder = Self.work.appendingPathComponent("path-\(index)-\(package.name)")
            try package.write(to: folder, manifest: manifest)
            do {
                // As written, with one build option: no debug information (the programs are run, not debugged).
                try Command.run(
                    "swift",
                    ["build", "--package-path", folder.path, "--scratch-path", scratch.path]
                        + FixtureBuild.withoutDebugInfo)
            } catch {
                Issue.record("\(package) does not build with a path dependency: \(error)")
                continue
            }
            for executable in package.executables {
                guard let expected = Self.printed[package.name] ?? nil else { continue }
                let program = scratch.appendingPathComponent("debug/\(executable)").path
                let outcome = try TimedCommand.run(program, [], in: folder, timeout: TimedCommand.hangGuard)
                #expect(outcome.succeeded, "\(package): \(executable) \(outcome.termination)\n\(outcome.standardError)")
                #expect(outcome.standardOutput.contains(expected), "\(package): \(outcome.standardOutput)")
            }
        }
    }

    @Test("URL form: each manifest as written resolves against a file:// mirror of this repository")
    func urlForm() throws {
        let manager = FileManager.default
        let mirror = Self.work.appendingPathComponent("mirror/\(SnippetPackage.identity).git")
        try? manager.removeItem(at: mirror)
        try manager.createDirectory(at: mirror.deletingLastPathComponent(), withIntermediateDirectories: true)
        let head = try Command.run("git", ["-C", Command.repository.path, "rev-parse", "HEAD"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try Command.run("git", ["clone", "--quiet", "--bare", Command.repository.path, mirror.path])
        // The documents ask for branch main: the mirror's main is this checkout's HEAD.
        try Command.run("git", ["--git-dir", mirror.path, "update-ref", "refs/heads/main", head])
        let scratch = Self.work.appendingPathComponent("scratch-url")
        for (index, package) in Self.packages.enumerated() {
            let folder = Self.work.appendingPathComponent("url-\(index)-\(package.name)")
            try package.write(to: folder, manifest: package.manifest)
            try Command.run(
                "swift",
                [
                    "package", "--package-path", folder.path, "config", "set-mirror", "--original",
                    SnippetPackage.documentedURL, "--mirror", mirror.absoluteURL.absoluteString,
                ])
            do {
                // Loading the graph checks every product and package a target names.
                try Command.run(
                    "swift",
                    ["package", "--package-path", folder.path, "--scratch-path", scratch.path, "show-dependencies"])
            } catch {
                Issue.record("\(package) does not resolve with its URL dependency: \(error)")
            }
            // The next package resolves this repository afresh (the same revision).
            try? manager.removeItem(at: folder.appendingPathComponent("Package.resolved"))
        }
    }
}
