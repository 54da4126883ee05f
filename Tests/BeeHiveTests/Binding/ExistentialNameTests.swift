import Testing

@testable import BeeHive

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

    @Test("other types, compositions and private protocols: the runtime names them, as before")
    func otherTypesAreNamedByTheRuntime() {
        let others: [any Any.Type] = [
            (any NamedPlain & AnyObject).self, (any NamedPlain & NamedClassBound).self, (any NamedPrivately).self,
            NamedClass.self, NamingOuter.Inner.self, NamedGeneric<Int>.self, Int.self, (any Error).self, Any.self,
            AnyObject.self, (any NamedPlain).Type.self,
        ]
        for type in others {
            #expect(Conformances.existentialName(of: type) == nil, "\(type)")
            #expect(TypeLookup.name(of: type) == _typeName(type, qualified: true))
        }
    }
}
