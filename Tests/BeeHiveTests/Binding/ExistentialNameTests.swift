import Testing

@testable import BeeHive

extension SwiftTypes.Index {
    /// The name of the existential `type`'s one protocol, when the index holds that protocol, as a string.
    fileprivate func existentialName(of type: any Any.Type) -> String? {
        withExistentialName(of: type) { String(decoding: $0, as: UTF8.self) }
    }
}

protocol NamedPlain {}
protocol NamedClassBound: AnyObject {}
protocol NamedRefining: NamedClassBound {}
enum NamingOuter {
    protocol Nested {}
    struct Inner {}
}
private protocol NamedPrivately {}
final class NamedClass {}
struct NamedGeneric<Element> {}

@Suite("A service's name, read from its protocol's descriptor, is the one the runtime prints")
struct ExistentialNameTests {
    static let protocols: [(any Any.Type, String)] = [
        ((any NamedPlain).self, "BeeHiveTests.NamedPlain"),
        ((any NamedClassBound).self, "BeeHiveTests.NamedClassBound"),
        ((any NamedRefining).self, "BeeHiveTests.NamedRefining"),
        ((any NamingOuter.Nested).self, "BeeHiveTests.NamingOuter.Nested"),
    ]

    @Test("a protocol's existential: from the descriptor, spelt as _typeName spells it")
    func protocolsAreNamedFromTheirDescriptors() {
        for (type, name) in Self.protocols {
            #expect(Conformances.existentialName(of: type) == name)
            #expect(TypeLookup.name(of: type) == _typeName(type, qualified: true))
        }
    }

    @Test("a module's index names the protocols it holds as their descriptors do, and nothing else")
    func protocolsAreNamedFromTheModuleIndex() throws {
        let (index, _) = try #require(SwiftTypes.Index.make(inModule: "BeeHiveTests"))
        for (type, name) in Self.protocols {
            #expect(index.existentialName(of: type) == name)
        }
        for type in OtherTypes.all {
            #expect(index.existentialName(of: type) == nil, "\(type)")
        }
        let (standardLibrary, _) = try #require(SwiftTypes.Index.make(inModule: "Swift"))
        #expect(standardLibrary.existentialName(of: (any NamedPlain).self) == nil, "another module's index")
        let sequence = (any Sequence).self
        #expect(standardLibrary.existentialName(of: sequence) == "Swift.Sequence")
        #expect(standardLibrary.existentialName(of: sequence) == Conformances.existentialName(of: sequence))
        let image = try #require(index.withOnlyEntry(named: "BeeHiveTests.NamedPlain") { $0 }?.image)
        index.drop(image: UInt(bitPattern: image))
        #expect(index.existentialName(of: (any NamedPlain).self) == nil, "a dropped image's protocol")
    }

    @Test("other types, compositions and private protocols: the runtime names them, as before")
    func otherTypesAreNamedByTheRuntime() {
        for type in OtherTypes.all {
            #expect(Conformances.existentialName(of: type) == nil, "\(type)")
            #expect(TypeLookup.name(of: type) == _typeName(type, qualified: true))
        }
    }
}

/// Types that are not the existential of one protocol of this module's with a name.
enum OtherTypes {
    static let all: [any Any.Type] = [
        (any NamedPlain & AnyObject).self, (any NamedPlain & NamedClassBound).self, (any NamedPrivately).self,
        NamedClass.self, NamingOuter.Inner.self, NamedGeneric<Int>.self, Int.self, (any Error).self, Any.self,
        AnyObject.self, (any NamedPlain).Type.self,
    ]
}
