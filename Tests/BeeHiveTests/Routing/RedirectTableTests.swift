import Foundation
import Testing

@testable import BeeHive
@testable import BeeHiveRouter

@Suite("RedirectTable: rewriting routes before dispatch")
struct RedirectTableTests {
    @Test("rewrites matching URLs and substitutes captures", arguments: RedirectTableTests.rewriteCases)
    func rewrite(_ row: RewriteCase) throws {
        let table = try RedirectTable([RedirectRule(from: row.from, to: row.to)])
        #expect(try table.resolve(row.url).url == row.expected)
    }

    @Test("a router dispatches the redirected URL and tells the handler where it came from")
    func routerAppliesRedirects() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://new/:id") { request in "\(request.originalURL) → \(request.url)" }
        router.setRedirects(try RedirectTable([RedirectRule(from: "app://old/:id", to: "app://new/:id")]))
        #expect(try router.open("app://old/7") as? String == "app://old/7 → app://new/7")
        #expect(router.canOpen("app://old/7"))
        #expect(try router.match("app://old/7").pattern == "app://new/:id")
        router.setRedirects(nil)
        #expect(!router.canOpen("app://old/7"))
    }

    @Test("a chain of redirects is followed to its end")
    func chain() throws {
        let table = try RedirectTable([
            RedirectRule(from: "app://a/:id", to: "app://b/:id"),
            RedirectRule(from: "app://b/:id", to: "app://c/:id"),
        ])
        let resolution = try table.resolve("app://a/1")
        #expect(resolution.url == "app://c/1")
        #expect(resolution.chain == ["app://a/1", "app://b/1", "app://c/1"])
        #expect(resolution.didRedirect)
    }

    @Test("a loop a → b → a is reported with its path")
    func loop() throws {
        let table = try RedirectTable([
            RedirectRule(from: "app://a/:id", to: "app://b/:id"),
            RedirectRule(from: "app://b/:id", to: "app://a/:id"),
        ])
        let error = #expect(throws: RouterError.self) { try table.resolve("app://a/1") }
        #expect(error?.code == .redirectLoop)
        #expect(error?.message.contains("'app://a/1' → 'app://b/1' → 'app://a/1'") == true)

        let router = Router(scheme: "app")
        router.setFallback { _ in "fallback must not hide a loop" }
        router.setRedirects(table)
        let opened = #expect(throws: RouterError.self) { try router.open("app://a/1") }
        #expect(opened?.code == .redirectLoop)
        #expect(!router.canOpen("app://a/1"))
    }

    @Test("a rule that redirects a URL to itself is a loop, not a hang")
    func selfLoop() throws {
        let table = try RedirectTable([RedirectRule(from: "app://same/:id", to: "app://same/:id")])
        let error = #expect(throws: RouterError.self) { try table.resolve("app://same/1?x=y") }
        #expect(error?.code == .redirectLoop)
    }

    @Test("a chain longer than the limit is refused even without a loop")
    func limit() throws {
        let rules = try (0..<10).map { try RedirectRule(from: "app://step\($0)", to: "app://step\($0 + 1)") }
        let table = try RedirectTable(rules, maximumHops: 4)
        let error = #expect(throws: RouterError.self) { try table.resolve("app://step0") }
        #expect(error?.code == .redirectLimitExceeded)
        #expect(error?.message.contains("at most 4 redirects") == true)
        #expect(try RedirectTable(rules).resolve("app://step0").url == "app://step10")
    }

    @Test("maxHops has a hard cap: a table in code asking for more, or for none, is refused")
    func hopCapInCode() throws {
        let rules = [try RedirectRule(from: "app://a", to: "app://b")]
        #expect(RedirectTable.maximumHopsLimit == 64)
        #expect(try RedirectTable(rules, maximumHops: RedirectTable.maximumHopsLimit).maximumHops == 64)
        for hops in [RedirectTable.maximumHopsLimit + 1, 32_000, 0, -1] {
            let error = #expect(throws: RouterError.self) { try RedirectTable(rules, maximumHops: hops) }
            #expect(error?.code == .invalidRedirectLimit)
            #expect(
                error?.message == "redirect table: expected maximumHops from 1 to 64, found \(hops)",
                "message: \(error?.message ?? "")")
        }
    }

    @Test("maxHops has a hard cap: a JSON document asking for more is refused with the file's name")
    func hopCapInJSON() throws {
        let json = #"{"maxHops": 32000, "redirects": [{"from": "app://a", "to": "app://b"}]}"#
        let error = #expect(throws: RouterError.self) {
            try RedirectTable(json: Data(json.utf8), source: "server.json")
        }
        #expect(error?.code == .malformedRedirectFile)
        #expect(
            error?.message == "server.json: expected \"maxHops\" to be an integer from 1 to 64, found number 32000")
        let atCap = #"{"maxHops": 64, "redirects": [{"from": "app://a", "to": "app://b"}]}"#
        #expect(try RedirectTable(json: Data(atCap.utf8)).maximumHops == 64)
    }

    @Test("a rule that doubles the URL each hop stops at the URL-length cap, naming the rule and the hop")
    func doublingRule() throws {
        let table = try RedirectTable([RedirectRule(from: "app://grow/~", to: "app://grow/~/~")])
        let start = ContinuousClock.now
        let error = #expect(throws: RouterError.self) { try table.resolve("app://grow/a") }
        #expect(ContinuousClock.now - start < .seconds(2), "hang guard")
        // Hop h produces app://grow/ and 2^h components "a": 10 + 2^(h+1) bytes, over 16,384 at hop 13.
        #expect(error?.code == .redirectURLTooLong)
        let message = error?.message ?? ""
        #expect(message.hasPrefix("redirecting 'app://grow/a': expected each redirect to produce at most 16384 bytes"))
        #expect(message.contains("found 16394 bytes at hop 13 by rule 'app://grow/~ → app://grow/~/~'"), "\(message)")
        #expect(message.utf8.count < 2_000, "the message quotes long URLs abbreviated")
    }

    @Test("a rule that adds 1 KB each hop stops at the URL-length cap even with the largest hop limit")
    func growingRule() throws {
        let block = String(repeating: "x", count: 1_000)
        let rule = try RedirectRule(from: "app://grow/~", to: "app://grow/~/\(block)")
        let table = try RedirectTable([rule], maximumHops: RedirectTable.maximumHopsLimit)
        let start = ContinuousClock.now
        let error = #expect(throws: RouterError.self) { try table.resolve("app://grow/a") }
        #expect(ContinuousClock.now - start < .seconds(2), "hang guard")
        // Hop h produces 12 + 1,001 h bytes: over 16,384 at hop 17.
        #expect(error?.code == .redirectURLTooLong)
        #expect(error?.message.contains("found 17029 bytes at hop 17 by rule 'app://grow/~ → app://grow/~/xxx") == true)
        #expect((error?.message.utf8.count ?? .max) < 2_000, "the message quotes the long rule abbreviated")
    }

    @Test("a chain at the hop cap reports its path with the middle left out")
    func longChainMessage() throws {
        let rules = try (0..<70).map { try RedirectRule(from: "app://step\($0)", to: "app://step\($0 + 1)") }
        let table = try RedirectTable(rules, maximumHops: RedirectTable.maximumHopsLimit)
        let error = #expect(throws: RouterError.self) { try table.resolve("app://step0") }
        #expect(error?.code == .redirectLimitExceeded)
        let message = error?.message ?? ""
        #expect(message.contains("expected at most 64 redirects"))
        #expect(message.contains("'app://step0' → 'app://step1' → 'app://step2' → … (60 more) → "), "\(message)")
        #expect(message.contains("… (60 more) → 'app://step63' → 'app://step64' → 'app://step65'"))
        #expect(try table.resolve("app://step6").url == "app://step70")
    }

    @Test("rules whose target uses what the source does not capture are refused")
    func badRules() {
        let unknownName = #expect(throws: RouterError.self) {
            try RedirectRule(from: "app://old/:id", to: "app://new/:name")
        }
        #expect(unknownName?.code == .malformedPattern)
        #expect(unknownName?.message.contains("found ':name'") == true)
        let wildcard = #expect(throws: RouterError.self) { try RedirectRule(from: "app://old", to: "app://new/~") }
        #expect(wildcard?.code == .malformedPattern)
        // A middle `~` matches one component but captures nothing: a target cannot use it.
        let middle = #expect(throws: RouterError.self) { try RedirectRule(from: "app://~/old", to: "app://new/~") }
        #expect(middle?.code == .malformedPattern)
        #expect(middle?.message.contains("expected '~' in the target only when the source ends with '~'") == true)
        let colliding = #expect(throws: RouterError.self) {
            try RedirectTable([
                RedirectRule(from: "app://old/:id", to: "app://a/:id"),
                RedirectRule(from: "app://old/:key", to: "app://b/:key"),
            ])
        }
        #expect(colliding?.code == .duplicateRoute)
    }

    @Test("a JSON file with bad entries keeps the good ones and names each bad entry")
    func partialFile() throws {
        let json = """
            {
                "version": 1,
                "maxHops": 5,
                "redirects": [
                    { "from": "app://old/:id", "to": "app://new/:id" },
                    { "from": "app://x" },
                    { "from": "app://y", "to": 42 },
                    "app://z",
                    { "from": "app://bad/:", "to": "app://ok" },
                    { "from": "app://old/:other", "to": "app://elsewhere" },
                    { "from": "app://legacy/~", "to": "https://m.example.com/~" }
                ]
            }
            """
        let table = try RedirectTable(json: Data(json.utf8), source: "redirects.json")
        #expect(
            table.rules.map(\.description) == [
                "app://old/:id → app://new/:id", "app://legacy/~ → https://m.example.com/~",
            ])
        #expect(table.maximumHops == 5)
        let messages = table.issues.map(\.message)
        #expect(table.issues.allSatisfy { $0.code == .malformedRedirectEntry })
        #expect(messages.count == 5)
        #expect(
            messages[0].hasPrefix("redirects.json, redirects[1]: expected \"from\" and \"to\" strings, found no \"to\"")
        )
        #expect(
            messages[1].hasPrefix("redirects.json, redirects[2]: expected \"to\" to be a string URL, found number 42"))
        #expect(messages[2].hasPrefix("redirects.json, redirects[3]: expected an object"))
        #expect(messages[2].contains("found string \"app://z\""))
        #expect(messages[3].hasPrefix("redirects.json, redirects[4]: pattern 'app://bad/:'"))
        #expect(messages[4].hasPrefix("redirects.json, redirects[5]:"))
        #expect(messages[4].contains("'app://old/:id'"))
        #expect(try table.resolve("app://old/3").url == "app://new/3")
        #expect(try table.resolve("app://legacy/a/b").url == "https://m.example.com/a/b")
    }

    @Test("an entry whose member repeats, or whose member name is not UTF-8, costs that entry only (fuzzer)")
    func repeatedAndInvalidMembers() throws {
        var json = Array(#"{"redirects": [{"from": "app://a", "to": "app://b", "to": "app://c"}, "#.utf8)
        json += Array(#"{"from": "app://d", "t"#.utf8) + [0x90] + Array(#"": "app://e"}, "#.utf8)
        json += Array(#"{"from": "app://f", "to": "app://g"}]}"#.utf8)
        let table = try RedirectTable(json: json, source: "r.json")
        #expect(table.rules.map(\.description) == ["app://f → app://g"])
        #expect(table.issues.map(\.message).first?.hasPrefix("r.json, redirects[0]: expected each member once") == true)
        #expect(table.issues.count == 2, "\(table.issues)")
        #expect(table.issues.map(\.message).last?.hasPrefix("r.json, redirects[1]: ") == true, "\(table.issues)")
    }

    @Test(
        "a file that is not a redirect document is refused with the file's name", arguments: RedirectTableTests.badFiles
    )
    func badFile(_ row: BadFileCase) {
        let error = #expect(throws: RouterError.self) {
            try RedirectTable(json: Data(row.json.utf8), source: "server.json")
        }
        #expect(error?.code == .malformedRedirectFile)
        #expect(error?.message.hasPrefix("server.json: ") == true)
        #expect(error?.message.contains(row.mentions) == true, "message: \(error?.message ?? "")")
    }

    @Test("loads from a file on disk, quoting its path in messages")
    func loadsFromFile() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("redirect-spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("redirects.json")
        try Data(#"{"redirects":[{"from":"app://a","to":"app://b"},{"to":"app://c"}]}"#.utf8).write(to: file)

        let table = try RedirectTable(contentsOfFile: file.path)
        #expect(table.rules.count == 1)
        #expect(table.issues.first?.message.hasPrefix("\(file.path), redirects[1]: ") == true)

        let missing = directory.appendingPathComponent("absent.json")
        let error = #expect(throws: RouterError.self) { try RedirectTable(contentsOfFile: missing.path) }
        #expect(error?.code == .malformedRedirectFile)
        #expect(error?.message.contains(missing.path) == true)
    }
}

extension RedirectTableTests {
    struct RewriteCase: Sendable, CustomTestStringConvertible {
        var from: String
        var to: String
        var url: String
        var expected: String
        var testDescription: String { "\(from) → \(to) on \(url)" }
    }

    static let rewriteCases: [RewriteCase] = [
        RewriteCase(from: "app://old/:id", to: "app://new/:id", url: "app://old/7", expected: "app://new/7"),
        RewriteCase(
            from: "app://old/:id", to: "app://new/:id?from=old", url: "app://old/7?tab=a#top",
            expected: "app://new/7?from=old&tab=a#top"),
        RewriteCase(
            from: "app://old/:id", to: "app://new?id=:id", url: "app://old/a%2Fb", expected: "app://new?id=a%2Fb"),
        RewriteCase(
            from: "app://legacy/~", to: "https://m.example.com:8080/h5/~", url: "app://legacy/a/b",
            expected: "https://m.example.com:8080/h5/a/b"),
        RewriteCase(from: "app://old/:a/:b", to: "app://new/:b/:a", url: "app://old/1/2", expected: "app://new/2/1"),
        RewriteCase(
            from: "app://用户/:id", to: "app://user/:id", url: "app://用户/张三",
            expected: "app://user/%E5%BC%A0%E4%B8%89"),
        RewriteCase(from: "app://old/:id", to: "app://new/:id", url: "app://other/7", expected: "app://other/7"),
        // A `~` before the last component is one component, as in MGJRouter; it captures nothing.
        RewriteCase(
            from: "app://~/detail/:id", to: "app://item/:id", url: "app://shop/detail/7", expected: "app://item/7"),
        RewriteCase(
            from: "app://~/detail/:id", to: "app://item/:id", url: "app://a/b/detail/7", expected: "app://a/b/detail/7"),
    ]

    struct BadFileCase: Sendable, CustomTestStringConvertible {
        var json: String
        var mentions: String
        var testDescription: String { json }
    }

    static let badFiles: [BadFileCase] = [
        BadFileCase(json: "{ not json", mentions: "expected a JSON document"),
        BadFileCase(json: "[]", mentions: "expected a JSON object with a \"redirects\" array, found an array of 0"),
        BadFileCase(json: #"{"rules": []}"#, mentions: "found no such member (members: \"rules\")"),
        BadFileCase(json: #"{"redirects": {}}"#, mentions: "expected \"redirects\" to be an array, found an object"),
        BadFileCase(
            json: #"{"version": 2, "redirects": []}"#, mentions: "expected \"version\" to be 1, found number 2"),
        BadFileCase(json: #"{"maxHops": 0, "redirects": []}"#, mentions: "\"maxHops\" to be an integer from 1 to 64"),
        BadFileCase(json: #"{"maxHops": 65, "redirects": []}"#, mentions: "from 1 to 64, found number 65"),
        BadFileCase(json: #"{"maxHops": 2.5, "redirects": []}"#, mentions: "from 1 to 64, found number 2.5"),
        BadFileCase(json: #"{"redirects": [], "redirects": []}"#, mentions: "found \"redirects\" more than once"),
        BadFileCase(json: #"{"redirects": [],}"#, mentions: "expected a JSON document"),
    ]
}
