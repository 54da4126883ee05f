import Testing

@testable import BeeHive

// Fixtures of every shape the binding meets: named here by strings, bound once from the images' metadata and once by
// the Swift runtime's own look-ups, and compared.

protocol BindingProbe { func probe() -> String }
protocol ClassBoundProbe: AnyObject { func probe() -> String }
protocol ComposedProbe { func probe() -> String }

/// A class, a struct and an enum of the test module.
final class BindingClass: BindingProbe, ClassBoundProbe, ServiceImplementation {
    init() {}
    func probe() -> String { "class" }
}
struct BindingStruct: BindingProbe, ServiceImplementation {
    func probe() -> String { "struct" }
}
enum BindingEnum: BindingProbe, ServiceImplementation {
    case only
    init() { self = .only }
    func probe() -> String { "enum" }
}
/// Too large for an opaque existential's inline buffer: the value lives in a box.
struct BindingWideStruct: BindingProbe, ServiceImplementation {
    var a = 1, b = 2, c = 3, d = 4
    func probe() -> String { "wide \(a + b + c + d)" }
}
/// Named only by the test of a name's origin image.
enum OriginProbes {
    struct Here {}
    struct Elsewhere {}
}
/// Nested types, two and three levels deep.
enum BindingOuter {
    struct Inner: BindingProbe, ServiceImplementation {
        func probe() -> String { "inner" }
    }
    final class Middle {
        enum Deepest: BindingProbe, ServiceImplementation {
            case only
            init() { self = .only }
            func probe() -> String { "deepest" }
        }
    }
}
/// Declares a conformance its subclass inherits (the subclass's records do not list it: the cast answers).
class BindingBase: BindingProbe, ServiceImplementation, @unchecked Sendable {
    required init() {}
    func probe() -> String { "base" }
}
final class BindingDerived: BindingBase, @unchecked Sendable {
    override func probe() -> String { "derived" }
}
/// Implements a composition (not assembled: the cast answers).
struct BindingComposed: ComposedProbe, CustomStringConvertible, ServiceImplementation {
    func probe() -> String { "composed" }
    var description: String { "composed" }
}

@Suite("The runtime binding: the metadata path and the runtime's path agree, and tests can tell them apart")
struct RuntimeBindingTests {
    /// The names of every fixture type, with what its `probe()` answers.
    static let fixtures: [(name: String, probe: String)] = [
        ("BeeHiveTests.BindingClass", "class"), ("BeeHiveTests.BindingStruct", "struct"),
        ("BeeHiveTests.BindingEnum", "enum"), ("BeeHiveTests.BindingWideStruct", "wide 10"),
        ("BeeHiveTests.BindingOuter.Inner", "inner"), ("BeeHiveTests.BindingOuter.Middle.Deepest", "deepest"),
        ("BeeHiveTests.BindingBase", "base"), ("BeeHiveTests.BindingDerived", "derived"),
    ]

    @Test(
        "every fixture name binds to the same type by both paths, and the metadata path answers it", arguments: fixtures
    )
    func typesAgree(_ fixture: (name: String, probe: String)) throws {
        let fast = try #require(TypeLookup.binding(named: fixture.name, path: .metadata))
        let slow = try #require(TypeLookup.binding(named: fixture.name, path: .runtime))
        #expect(ObjectIdentifier(fast.type) == ObjectIdentifier(slow.type))
        #expect(fast.path == .metadata, "the test image's self-check agreed, so its metadata answers")
        #expect(slow.path == .runtime)
        #expect(TypeLookup.name(of: fast.type) == fixture.name)
    }

    @Test("the nested names are the runtime's: a level's kind (class, struct, enum) is read, not guessed")
    func nestedKinds() throws {
        let deepest = try #require(TypeLookup.type(named: "BeeHiveTests.BindingOuter.Middle.Deepest", path: .metadata))
        #expect(ObjectIdentifier(deepest) == ObjectIdentifier(BindingOuter.Middle.Deepest.self))
        let middle = try #require(TypeLookup.type(named: "BeeHiveTests.BindingOuter.Middle", path: .metadata))
        #expect(ObjectIdentifier(middle) == ObjectIdentifier(BindingOuter.Middle.self))
    }

    @Test("every fixture becomes an implementation by both paths, with the same type", arguments: fixtures)
    func implementationsAgree(_ fixture: (name: String, probe: String)) throws {
        let type = try #require(TypeLookup.type(named: fixture.name))
        let fast = try #require(Conformances.implementation(type, path: .metadata))
        let slow = try #require(Conformances.implementation(type, path: .runtime))
        #expect(ObjectIdentifier(fast) == ObjectIdentifier(slow))
        #expect((fast.init() as? any BindingProbe)?.probe() == fixture.probe)
    }

    @Test(
        "a name bound by its conformance to ServiceImplementation gives the type the look-up by name gives",
        arguments: fixtures)
    func implementationsByConformance(_ fixture: (name: String, probe: String)) throws {
        let origin = try #require(TypeLookup.Origin.mainProgram)
        let hive = Hive()
        let found = Conformances.implementation(named: fixture.name, writtenIn: origin, path: .metadata, for: hive)
        guard fixture.name != "BeeHiveTests.BindingDerived" else {
            // Its records do not list the conformance it inherits: the look-up by name and the cast answer.
            #expect(found == nil)
            return
        }
        let type = try #require(found)
        let named = try #require(TypeLookup.type(named: fixture.name, path: .metadata))
        #expect(ObjectIdentifier(type) == ObjectIdentifier(named))
        #expect((type.init() as? any BindingProbe)?.probe() == fixture.probe)
        #expect(Conformances.implementation(named: fixture.name, writtenIn: origin, path: .runtime, for: hive) == nil)
    }

    @Test("what a conformance cannot bind is left to the look-up by name, which explains it")
    func implementationsByConformanceMiss() throws {
        let origin = try #require(TypeLookup.Origin.mainProgram)
        let hive = Hive()
        for name in [
            "BeeHiveTests.OriginProbes.Here",  // a type that does not conform
            "BeeHiveTests.BindingProbe",  // a protocol
            "BeeHiveTests.NoSuchType", "BindingClass", "NoSuchModule.BindingClass", "",
        ] {
            #expect(Conformances.implementation(named: name, writtenIn: origin, path: .metadata, for: hive) == nil)
        }
        // Nothing is wrong with the image (the bookkeeping test below may leave a disagreement about Fake types).
        let diagnostics = hive.diagnostics.filter { !$0.message.contains("Fake.") }
        #expect(diagnostics.isEmpty, "\(diagnostics)")
    }

    @Test("a walk keeps the conformers of the protocol it names by their names")
    func conformersByName() throws {
        let image = try #require(TypeLookup.declarations(named: "BeeHiveTests.BindingClass")?.first?.image)
        let implementation = try #require(Conformances.singleProtocol(of: (any ServiceImplementation).self)?.descriptor)
        var anchor: SwiftConformances.Record?
        let table = try #require(
            SwiftConformances.table(
                ofModule: "BeeHiveTests", in: image, meeting: nil, met: &anchor, naming: implementation))
        #expect(table.problems.isEmpty)
        func record(_ name: String) -> SwiftConformances.Record? {
            var name = name
            return name.withUTF8 { table.record(named: $0) }
        }
        for (name, type) in [
            ("BeeHiveTests.BindingStruct", BindingStruct.self as Any.Type),
            ("BeeHiveTests.BindingOuter.Middle.Deepest", BindingOuter.Middle.Deepest.self),
        ] {
            let found = try #require(record(name))
            #expect(found.type == SwiftConformances.typeDescriptor(of: Conformances.metadata(of: type)))
            #expect(found.protocol == implementation && found.image == image)
        }
        #expect(record("BeeHiveTests.BindingOuter") == nil, "does not conform")
        #expect(record("BeeHiveTests.BindingOuter.Middle") == nil, "does not conform")
        #expect(record("BeeHiveTests.BindingStruc") == nil && record("BeeHiveTests.BindingStructs") == nil)
        // Without a protocol to name, nothing is kept by name.
        let unnamed = try #require(
            SwiftConformances.table(ofModule: "BeeHiveTests", in: image, meeting: nil, met: &anchor))
        var struct_ = "BeeHiveTests.BindingStruct"
        #expect(struct_.withUTF8 { unnamed.record(named: $0) } == nil)
    }

    @Test("opaque, wide and class-bound existentials, inherited conformances: both paths give the same value")
    func existentialsAgree() throws {
        let before = RuntimeBinding.statistics
        let values: [Any] = [
            BindingClass(), BindingStruct(), BindingEnum.only, BindingWideStruct(), BindingOuter.Inner(),
            BindingOuter.Middle.Deepest.only, BindingBase(), BindingDerived(),
        ]
        typealias Probe = any BindingProbe
        for value in values {
            let fast = try #require(Conformances.box(value, as: Probe.self, path: .metadata)?.value(as: Probe.self))
            let slow = try #require(Conformances.box(value, as: Probe.self, path: .runtime)?.value(as: Probe.self))
            #expect(fast.probe() == slow.probe())
            #expect(ObjectIdentifier(type(of: fast)) == ObjectIdentifier(type(of: slow)))
        }
        let object = BindingClass()
        let fast = try #require(
            Conformances.box(object, as: (any ClassBoundProbe).self, path: .metadata)?
                .value(as: (any ClassBoundProbe).self))
        let slow = try #require(
            Conformances.box(object, as: (any ClassBoundProbe).self, path: .runtime)?
                .value(as: (any ClassBoundProbe).self))
        #expect(fast === object && slow === object)
        let after = RuntimeBinding.statistics
        // Counters only grow (other suites bind too): each path was taken at least once per value.
        #expect(after.metadataConformances - before.metadataConformances >= 7, "all but the inherited one assembled")
        #expect(after.runtimeConformances - before.runtimeConformances >= values.count + 1)
    }

    @Test("a composition and a type that does not conform: both paths agree (the cast answers both)")
    func fallbacksAgree() {
        let composed = BindingComposed()
        typealias Composed = any ComposedProbe & CustomStringConvertible
        let fast = Conformances.box(composed, as: Composed.self, path: .metadata)?.value(as: Composed.self)
        let slow = Conformances.box(composed, as: Composed.self, path: .runtime)?.value(as: Composed.self)
        #expect(fast?.description == "composed" && slow?.description == "composed")
        #expect(Conformances.box(BindingComposed(), as: (any BindingProbe).self, path: .metadata) == nil)
        #expect(Conformances.box(BindingComposed(), as: (any BindingProbe).self, path: .runtime) == nil)
        #expect(Conformances.metatype(BindingComposed.self, as: (any BindingProbe.Type).self, path: .metadata) == nil)
    }

    @Test("the test image's first binding agreed with the runtime's answer (the self-check)")
    func selfCheckAgreed() throws {
        let entry = try #require(TypeLookup.declarations(named: "BeeHiveTests.BindingClass")?.first)
        _ = TypeLookup.type(named: "BeeHiveTests.BindingClass", path: .metadata)
        _ = Conformances.box(BindingClass(), as: (any ClassBoundProbe).self, path: .metadata)
        let image = try #require(entry.image)
        #expect(RuntimeBinding.state(ofImage: image) == .agreed)
        #expect(RuntimeBinding.state(ofImage: image, .conformance) == .agreed, "checked apart from the types")
        #expect(RuntimeBinding.statistics.selfChecks >= 1)
        // No real image disagreed (the bookkeeping test below makes a disagreement of its own, about Fake types).
        let disagreements = RuntimeBinding.diagnostics.filter {
            $0.message.contains("to agree with the Swift runtime") && !$0.message.contains("Fake.")
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
        #expect(!RuntimeBinding.imageStates.values.contains(.corrupt), "\(RuntimeBinding.imageStates)")
    }

    @Test("the image that holds BeeHive checks its conformances against the compiler's answer, not the runtime's scan")
    func compilerCheck() throws {
        let image = try #require(TypeLookup.declarations(named: "BeeHiveTests.BindingClass")?.first?.image)
        _ = Conformances.box(BindingStruct(), as: (any BindingProbe).self, path: .metadata)
        #expect(Conformances.anchorImage == image, "a walk of the test image met BeeHive's own conformance record")
        #expect(RuntimeBinding.state(ofImage: image, .conformance) == .agreed)
        #expect(RuntimeBinding.statistics.compilerChecks == 1, "one image holds BeeHive, checked once")
    }

    @Test("the image that holds BeeHive checks its types against the compiler's answer, not the runtime's name")
    func compilerTypeCheck() throws {
        let image = try #require(TypeLookup.declarations(named: "BeeHiveTests.BindingClass")?.first?.image)
        #expect(ConformanceAnchor.typeVerdict(in: image) == true, "BeeHive's reading gives the compiler's anchor")
        _ = TypeLookup.type(named: "BeeHiveTests.BindingStruct", path: .metadata)
        #expect(RuntimeBinding.state(ofImage: image) == .agreed)
        #expect(RuntimeBinding.statistics.compilerTypeChecks == 1, "one image holds BeeHive, checked once")
        let int = try #require(SwiftConformances.typeDescriptor(of: Conformances.metadata(of: Int.self)))
        let standardLibrary = try #require(SwiftConformances.module(of: int)?.image)
        #expect(standardLibrary != image)
        #expect(ConformanceAnchor.typeVerdict(in: standardLibrary) == nil, "another image: the runtime checks it")
        // Another descriptor read in the anchor's place disagrees: a type of another name and metadata.
        let anchor = try #require(Conformances.anchorDescriptors?.type)
        let other = try #require(SwiftConformances.typeDescriptor(of: Conformances.metadata(of: BindingStruct.self)))
        #expect(ConformanceAnchor.typeAgrees(descriptor: anchor))
        #expect(!ConformanceAnchor.typeAgrees(descriptor: other))
    }

    @Test("a walk meets the anchor's record only in BeeHive's image; another record read in its place disagrees")
    func anchorRecord() throws {
        let image = try #require(TypeLookup.declarations(named: "BeeHiveTests.BindingClass")?.first?.image)
        let anchor = try #require(Conformances.anchorDescriptors)
        var anchorRecord: SwiftConformances.Record?
        let table = try #require(
            SwiftConformances.table(ofModule: "BeeHiveTests", in: image, meeting: anchor, met: &anchorRecord))
        #expect(table.problems.isEmpty)
        let met = try #require(anchorRecord, "the anchor is of module BeeHive, in the test image")
        #expect(met.image == image && met.type == anchor.type && met.protocol == anchor.protocol)
        #expect(table.record(type: met.type, protocol: met.protocol) == nil, "met, not kept as the module's")
        #expect(Conformances.anchorAgrees(conformance: met.conformance))
        let probe = try #require(SwiftConformances.typeDescriptor(of: Conformances.metadata(of: BindingStruct.self)))
        let probed = try #require(Conformances.singleProtocol(of: (any BindingProbe).self)?.descriptor)
        let other = try #require(table.record(type: probe, protocol: probed))
        #expect(other.image == image)
        #expect(!Conformances.anchorAgrees(conformance: other.conformance), "another witness table than the compiler's")
        let standardLibrary = unsafeBitCast(Int.self, to: UnsafeRawPointer.self)
        var elsewhere: SwiftConformances.Record?
        let swift = SwiftConformances.table(ofModule: "Swift", in: standardLibrary, meeting: anchor, met: &elsewhere)
        #expect(swift != nil)
        #expect(elsewhere == nil)
    }

    @Test("a walk of conformances told the module's types by its index keeps what one reading their parents keeps")
    func conformancesByTheModuleIndex() throws {
        let image = try #require(TypeLookup.declarations(named: "BeeHiveTests.BindingClass")?.first?.image)
        let (index, _) = try #require(SwiftTypes.Index.make(inModule: "BeeHiveTests", near: image))
        var met: SwiftConformances.Record?
        let byParents = try #require(
            SwiftConformances.table(ofModule: "BeeHiveTests", in: image, meeting: nil, met: &met))
        let byIndex = try #require(
            SwiftConformances.table(ofModule: "BeeHiveTests", in: image, meeting: nil, met: &met, members: index))
        let entries = index.all
        let types = entries.filter { $0.kind != .protocol }.map(\.descriptor)
        var protocols = entries.filter { $0.kind == .protocol }.map(\.descriptor)
        protocols.append(try #require(Conformances.singleProtocol(of: (any ServiceImplementation).self)?.descriptor))
        protocols.append(try #require(Conformances.singleProtocol(of: (any CustomStringConvertible).self)?.descriptor))
        var kept = 0
        for type in types {
            #expect(index.holdsType(type))
            for proto in protocols {
                let record = byParents.record(type: type, protocol: proto)
                #expect(byIndex.record(type: type, protocol: proto)?.conformance == record?.conformance)
                if record != nil { kept += 1 }
            }
        }
        #expect(kept > 50, "the module's conformances were compared, not two empty tables")
        #expect(!index.holdsType(try #require(protocols.first)), "a protocol is not a type the walk keeps")
        let int = try #require(SwiftConformances.typeDescriptor(of: Conformances.metadata(of: Int.self)))
        #expect(!index.holdsType(int), "another module's type")
    }

    @Test("a walk near an address reads only the image that holds it; an address in no image reads none")
    func walkOfOneImage() throws {
        let image = try #require(TypeLookup.declarations(named: "BeeHiveTests.BindingClass")?.first?.image)
        let local = try #require(SwiftTypes.entries(inModule: "BeeHiveTests", near: image))
        #expect(local.entries.contains { $0.name == "BeeHiveTests.BindingOuter.Middle.Deepest" })
        #expect(local.entries.allSatisfy { $0.image == image })
        // The standard library is another image: near this one it has no types; in every image, it has.
        #expect(try #require(SwiftTypes.entries(inModule: "Swift", near: image)).entries.isEmpty)
        #expect(try #require(SwiftTypes.entries(inModule: "Swift")).entries.contains { $0.name == "Swift.Int" })
        let block = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { block.deallocate() }
        #expect(SwiftTypes.entries(inModule: "BeeHiveTests", near: block) == nil)
    }

    @Test("a module's index finds each of its names exactly, no prefix and no other name, and drops an image's types")
    func moduleIndex() throws {
        let (index, problems) = try #require(SwiftTypes.Index.make(inModule: "BeeHiveTests"))
        #expect(problems.isEmpty)
        let all = index.all
        #expect(all.contains { $0.name == "BeeHiveTests.BindingOuter.Middle.Deepest" && $0.kind == .enum })
        for entry in all {
            #expect(index.entries(named: entry.name).contains(entry), "\(entry.name)")
        }
        #expect(index.withOnlyEntry(named: "BeeHiveTests.BindingProbe") { $0 }?.kind == .protocol)
        #expect(index.withOnlyEntry(named: "BeeHiveTests.BindingOuter.Middle") { $0 }?.kind == .class)
        for missing in ["BeeHiveTests.BindingOuter.Middl", "BeeHiveTests.BindingOuter.Middle.", "BindingClass", ""] {
            #expect(index.entries(named: missing).isEmpty, "\(missing)")
            #expect(index.withOnlyEntry(named: missing) { $0 } == nil, "\(missing)")
        }
        let image = try #require(index.withOnlyEntry(named: "BeeHiveTests.BindingClass") { $0 }?.image)
        index.drop(image: UInt(bitPattern: image))
        #expect(index.withOnlyEntry(named: "BeeHiveTests.BindingClass") { $0 } == nil)
        #expect(index.all.allSatisfy { $0.image != image })
    }

    @Test("a name is bound from the image it was written in, and from every image when that one does not have it")
    func bindingFromTheOrigin() throws {
        let image = try #require(TypeLookup.declarations(named: "BeeHiveTests.BindingClass")?.first?.image)
        let standardLibrary = unsafeBitCast(Int.self, to: UnsafeRawPointer.self)  // metadata in libswiftCore
        // Ids no scanner gives (they count up from 1), and names no other test binds: nothing here was cached before.
        let here = TypeLookup.Origin(id: .max, address: image)
        let elsewhere = TypeLookup.Origin(id: .max - 1, address: standardLibrary)
        let fromHere = TypeLookup.binding(named: "BeeHiveTests.OriginProbes.Here", path: .metadata, writtenIn: here)
        #expect(fromHere?.type == OriginProbes.Here.self && fromHere?.path == .metadata)
        let fromElsewhere = TypeLookup.binding(
            named: "BeeHiveTests.OriginProbes.Elsewhere", path: .metadata, writtenIn: elsewhere)
        #expect(fromElsewhere?.type == OriginProbes.Elsewhere.self && fromElsewhere?.path == .metadata)
        #expect(TypeLookup.binding(named: "BeeHiveTests.NoSuchType", path: .metadata, writtenIn: here) == nil)
    }

    @Test("a hive whose option turns the metadata path off binds by the runtime's look-ups, with the same result")
    func optionSwitchesThePath() throws {
        let runtime = Hive(options: .init(bindsNamesFromMetadata: false))
        let metadata = Hive(options: .init(bindsNamesFromMetadata: true))
        #expect(runtime.bindingPath == .runtime && metadata.bindingPath == .metadata)
        #expect(Hive().bindingPath == RuntimeBinding.environmentPath)
        for hive in [runtime, metadata] {
            try hive.register(service: "BeeHiveTests.BindingProbe", impl: "BeeHiveTests.BindingOuter.Inner")
            try hive.register(service: "BeeHiveTests.ClassBoundProbe", impl: "BeeHiveTests.BindingClass")
            #expect(try hive.createService(BindingProbe.self).probe() == "inner")
            #expect(try hive.createService(ClassBoundProbe.self).probe() == "class")
        }
    }

    @Test("an image whose first binding disagrees with the runtime's goes to the runtime's path, with one warning")
    func disagreementFallsBack() throws {
        // An address of no image (a heap block): the bookkeeping is exercised without touching a real image.
        let block = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { block.deallocate() }
        let image = UnsafeRawPointer(block)
        let before = RuntimeBinding.statistics.disagreements
        #expect(!RuntimeBinding.selfCheck(image: image, what: "the type Fake.Type") { false })
        #expect(RuntimeBinding.state(ofImage: image) == .runtime)
        #expect(
            !RuntimeBinding.selfCheck(image: image, what: "the type Fake.Other") {
                Issue.record("checked twice"); return true
            })
        #expect(RuntimeBinding.statistics.disagreements >= before + 1)
        // Made once, and recorded in whichever hive asks next (another suite's, when tests run in parallel).
        let warnings = RuntimeBinding.diagnostics.filter { $0.message.contains("for the type Fake.Type it does not") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.severity == .warning)
        #expect(warnings.first?.code == .unreadableImage)
        #expect(!RuntimeBinding.diagnostics.contains { $0.message.contains("Fake.Other") })
    }
}
