import Testing
@_spi(Testing) import _BeeHiveDiscovery

@Suite("API versions: what @BeeHiveAPI declares and what a host accepts")
struct APIVersionTests {
    @Test("a version is MAJOR.MINOR or MAJOR.MINOR.PATCH of decimal numbers; anything else is no version")
    func parsing() {
        #expect(APIVersion("2.1") == APIVersion(major: 2, minor: 1, patch: 0))
        #expect(APIVersion("2.1.7") == APIVersion(major: 2, minor: 1, patch: 7))
        #expect(APIVersion("0.0.0")?.description == "0.0.0")
        for bad in [
            "", "2", "2.", ".1", "2.1.", "v2.1", "2.1.0-beta", "2.1.0.4", " 2.1", "+2.1", "2.x", "1234567890.0",
        ] {
            #expect(APIVersion(bad) == nil, "\(bad)")
        }
    }

    @Test("a host accepts the same major version and a minor version no newer than its own, whatever the patch")
    func acceptance() throws {
        let host = try #require(APIVersion("2.1.0"))
        for accepted in ["2.0", "2.0.9", "2.1", "2.1.5"] {
            #expect(host.accepts(builtAgainst: try #require(APIVersion(accepted))), "\(accepted)")
        }
        for refused in ["1.9", "2.2", "3.0", "1.1"] {
            #expect(!host.accepts(builtAgainst: try #require(APIVersion(refused))), "\(refused)")
        }
        #expect(host.acceptedRange == "2.0 through 2.1.x")
        #expect(APIVersion(major: 3, minor: 0).acceptedRange == "3.0.x")
    }

    @Test("a marker names the protocol and its version; other text is no marker")
    func markers() {
        let parsed = APIVersion.parse(marker: "beehive-api:Shop.Outer.PriceService@2.1.0")
        #expect(parsed?.api == "Shop.Outer.PriceService")
        #expect(parsed?.version == APIVersion(major: 2, minor: 1))
        for bad in [
            "", "beehive-api:", "beehive-api:@2.1", "beehive-api:Shop.P", "beehive-api:Shop.P@two", "Shop.P@2.1",
        ] {
            #expect(APIVersion.parse(marker: bad) == nil, "\(bad)")
        }
    }

    @Test("an API record says the protocol and its version, with file and line; a malformed one says what it expected")
    func apiRecords() throws {
        let record = try APIRecord(parse(#"{"api":"Shop.P","version":"2.1","file":"Shop/P.swift","line":4}"#))
        #expect(record.api == "Shop.P")
        #expect(record.version == APIVersion(major: 2, minor: 1))
        #expect(record.location == RecordLocation(file: "Shop/P.swift", line: 4))
        let cases = [
            (#"{"api":"Shop.P","version":"2.x"}"#, #"for "version"; found "2.x""#),
            (#"{"api":"Shop.P"}"#, #"found no "version" key"#),
            (#"{"version":"1.0"}"#, #"found no "api" key"#),
            (#"{"api":"Shop.P","version":"1.0","rank":3}"#, #"expected only the keys api, version, file, line"#),
            (#""Shop.P""#, "found a bare string"),
        ]
        for (text, message) in cases {
            let error = #expect(throws: RecordError.self) { try APIRecord(parse(text)) }
            #expect(error?.message.contains(message) == true, "\(text): \(error?.message ?? "")")
        }
    }

    @Test("a C service record may say the version of the API it was built against; a malformed one is an error")
    func serviceRecordVersions() throws {
        let service = try ServiceRecord(
            parse(#"{"service":"Shop.P","impl":"Shop.I","api":"2.1.0","file":"a.c","line":3}"#))
        #expect(service.api == APIVersion(major: 2, minor: 1))
        #expect(try ServiceRecord(parse(#"{"service":"Shop.P","impl":"Shop.I"}"#)).api == nil)
        let error = #expect(throws: RecordError.self) {
            try ServiceRecord(parse(#"{"service":"Shop.P","impl":"Shop.I","api":"two"}"#))
        }
        #expect(error?.message.contains(#"for "api""#) == true, "\(error?.message ?? "")")
    }
}
