#!/usr/bin/env python3
"""The floor programs of issue 33: what a first use by type costs without BeeHive, measured in the same run.

Six small Swift programs per N (five sources: b3 is b2 with a flag), written by this file, built with `swiftc -O`
and counted with callgrind the way firstuse.py counts the startup programs. Each declares N protocols `Service<i>`
(`func value() -> Int`) with mixed implementations (a final class, a struct, a final class nested in an enum, a
struct nested in a struct, in turn), registers every service, and resolves each one by `resolve(Service<i>.self)`,
which returns `any Service<i>`. Every service is a singleton, made at its first resolve.

    b2   a container keyed by type: `[ObjectIdentifier: Cell]` keyed by `ObjectIdentifier(Service<i>.self)`; a cell
         is one non-generic final class holding a fill closure and raw storage, typed only inside the generic
         (specialized) `register` / `resolve`. Default compile flags.
    b3   b2's source built with `-Xfrontend -disable-concrete-type-metadata-mangled-name-accessors`: the compiler
         asks for `(any P).self` directly instead of through its mangled name.
    c    keys generated per protocol, as a macro on the protocol could write them: a `register<i>` function and a
         `resolve(_: (any Service<i>).Type)` overload per protocol, each with a static slot index into one array of
         per-protocol final holder classes. The metatype is never made at run time.
    r    c with what a registry must keep, and nothing more: one entry object per registration (service name,
         registration name, implementation name, rank, image) indexed by its service's name (open addressing, a
         multiplicative hash of the UTF-8) and by its key's static slot, behind one lock that a batch of
         registrations takes once; a first use claims the entry's slot under the lock, makes the instance outside
         it and keeps it under the lock. No record read, no metrics, no public registration value.
    n    r's duties for name-bound records, as the C macros write them: one string literal holds N JSON records
         `{"service":"App.Service<i>","impl":"App.<implementation>","file":…,"line":…}`, NUL-terminated, as a
         section does. Registration parses them (no escapes; C macros write none) into entries indexed by the last
         name of their service, and takes the lock once for the batch. The first use by `resolve(Service<i>.self)`
         (generic, so the caller names `any Service<i>`) reads the protocol from the existential's metadata and finds
         the entry by its qualified name; then, outside the lock, binds the implementation's name to a type of the
         image that holds the code (its conformance records, walked once: the types conforming to `Makeable`, the
         registry's `init()`, by name; every conformance by type and protocol; every address checked against the
         image's loaded segments), gets the metadata from the type's access function, makes the instance through
         `Makeable`'s witness table and assembles `any Service<i>` with the service's. Built with `-module-name App`.
    w    compile-time wiring: a lazy `static let` per service (`swift_once` at first use). No container.

Modes (argv[1]): `none` exits before registering; `register` registers every service; `type` also resolves every
service once; `twice` resolves every service twice (the second pass is the cached resolve); `verify` checks each
instance's dynamic type and, for classes, that two resolves return the same instance. Every program prints
`sum=<S> created=<C>`: S is the sum of `value()` over the resolves (N(N-1)/2 per pass), C the instances made (N).
A program whose answers are wrong is not counted. Then, per service:

    registration = (Ir(register) - Ir(none)) / N
    first use    = (Ir(type) - Ir(register)) / N
    cached       = (Ir(twice) - Ir(type)) / N

plus, from metatype_floor.py, what naming `(any P).self` once costs (per protocol).

    python3 Benchmarks/Tools/floor_programs.py write DIR --n 10,100            # the sources only
    python3 Benchmarks/Tools/floor_programs.py measure --n 10,100,1000 --work DIR --out floors.json

Needs swiftc (PATH or /opt/swift/usr/bin) and valgrind. Python standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from metatype_floor import naming_cost  # noqa: E402

VARIANTS = ("b2", "b3", "c", "r", "n", "w")
LABELS = {
    "b2": "b2: `[ObjectIdentifier: Cell]` keyed by `ObjectIdentifier(P.self)`, raw typed slots",
    "b3": "b3: b2 built with `-disable-concrete-type-metadata-mangled-name-accessors`",
    "c": "c: per-protocol generated keys, `resolve(_: (any P).Type)` overloads, static slots",
    "r": "r: c with a registry's duties: an entry per registration, indexed by name, a lock, a claimed slot",
    "n": "n: r's duties for name-bound records: parsed, indexed by name, bound by name to a type and conformances",
    "w": "w: compile-time wiring, a lazy `static let` per service",
}
SOURCE_OF = {"b2": "b2", "b3": "b2", "c": "c", "r": "r", "n": "n", "w": "w"}  # b3 is b2's source with another flag
FLAGS = {"b3": ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], "n": ["-module-name", "App"]}
MODES = ("none", "register", "type", "twice")
GROUP = 50  # services per @inline(never) function: one function of N inlined calls makes -O superlinear


def implementation(i: int) -> str:
    return (f"Impl{i}", f"Impl{i}", f"Box{i}.Impl{i}", f"Wrap{i}.Impl{i}")[i % 4]


def is_class(i: int) -> bool:
    return i % 4 in (0, 2)


def service_declarations(i: int) -> list[str]:
    final_class = (f"final class Impl{i}: Service{i} {{ init() {{ created &+= 1 }}; "
                   f"func value() -> Int {{ {i} }} }}")
    plain_struct = (f"struct Impl{i}: Service{i} {{ let v: Int; init() {{ created &+= 1; v = {i} }}; "
                    f"func value() -> Int {{ v }} }}")
    kind = (final_class, plain_struct, f"enum Box{i} {{ {final_class} }}",
            f"struct Wrap{i} {{ let tag = 0; {plain_struct} }}")[i % 4]
    return [f"protocol Service{i} {{ func value() -> Int }}", kind]


# A cell: raw storage for one service's instance (an existential `any P` is 40 bytes), made by its fill closure.
KEYED_BY_TYPE = """\
final class Cell {
    var ready = false
    let fill: (UnsafeMutableRawPointer) -> Void
    let bytes = UnsafeMutableRawPointer.allocate(byteCount: 40, alignment: 16)
    init(_ fill: @escaping (UnsafeMutableRawPointer) -> Void) { self.fill = fill }
}
var cells: [ObjectIdentifier: Cell] = [:]
@inline(__always) func register<T>(_ key: T.Type, _ make: @escaping () -> T) {
    precondition(MemoryLayout<T>.size <= 40 && MemoryLayout<T>.alignment <= 16)
    cells[ObjectIdentifier(key)] = Cell { $0.initializeMemory(as: T.self, to: make()) }
}
@inline(__always) func resolve<T>(_ key: T.Type) -> T {
    let cell = cells[ObjectIdentifier(key)]!
    if !cell.ready {
        cell.fill(cell.bytes)
        cell.ready = true
    }
    return cell.bytes.assumingMemoryBound(to: T.self).pointee
}
"""

GENERATED_KEYS = """\
class Holder {}
var holders: [Holder] = []
"""


def generated_key(i: int) -> list[str]:
    """What a macro on `Service<i>` could write: a slot index, a holder class, a register function and an overload
    of `resolve`. The instance is kept behind a class reference (`Made<i>?`), not as `(any Service<i>)?`, whose
    copies would need `Optional<any Service<i>>`'s metadata, made at run time from its mangled name."""
    return [
        f"var slot{i} = -1",
        f"final class Made{i} {{ let instance: any Service{i}; init(_ instance: any Service{i}) "
        f"{{ self.instance = instance }} }}",
        f"final class Holder{i}: Holder {{",
        f"    let make: () -> any Service{i}",
        f"    var made: Made{i}?",
        f"    init(_ make: @escaping () -> any Service{i}) {{ self.make = make }}",
        "}",
        f"@inline(__always) func register{i}(_ make: @escaping () -> any Service{i}) {{",
        f"    slot{i} = holders.count",
        f"    holders.append(Holder{i}(make))",
        "}",
        f"@inline(__always) func resolve(_: (any Service{i}).Type) -> any Service{i} {{",
        f"    let holder = holders[slot{i}] as! Holder{i}",
        "    if let made = holder.made { return made.instance }",
        "    let instance = holder.make()",
        f"    holder.made = Made{i}(instance)",
        "    return instance",
        "}",
    ]


# The registry of r: what BeeHive must keep per registration (its names, rank and image, for look-ups by name, ranks
# and withdrawal) and per first use (a lock, a claimed slot), and nothing more: one object per registration, indexed
# by its service's name (open addressing, a multiplicative hash over the UTF-8) and by its key's slot, behind one lock
# that a batch of registrations takes once. Its mutable state is read without the runtime's exclusivity checks, as
# BeeHive's is (the lock already makes access exclusive).
REGISTRY = """\
import Synchronization
final class Entry {
    let service: String
    let name: String?
    let implementation: String
    let rank: Int
    let image: UInt64
    let make: () -> AnyObject
    @exclusivity(unchecked) var made: AnyObject?
    @exclusivity(unchecked) var creating = false
    init(_ service: String, _ implementation: String, make: @escaping () -> AnyObject) {
        (self.service, self.name, self.implementation, self.rank, self.image, self.make) =
            (service, nil, implementation, 0, 1, make)
    }
}
func nameHash(_ text: String) -> UInt {
    var text = text
    return text.withUTF8 { bytes in
        var hash: UInt = 0xcbf2_9ce4_8422_2325 ^ UInt(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt.self))
                &* 0x9E37_79B9_7F4A_7C15
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt(bytes[offset])) &* 0x100_0000_01B3
            offset += 1
        }
        return hash | 1
    }
}
struct Table {
    var hashes: [UInt] = []
    var slots: [Entry] = []
    var order: [Entry] = []
    var byKey: [Entry] = []
    mutating func reserve(_ count: Int) {
        var size = 16
        while size < count * 2 { size *= 2 }
        hashes = Array(repeating: 0, count: size)
        slots = Array(repeating: placeholder, count: size)
        order.reserveCapacity(count)
        byKey.reserveCapacity(count)
    }
    /// Adds `entry` under its service's name, unless an entry of that name ranks as high; returns its key slot.
    mutating func add(_ entry: Entry) -> Int {
        let hash = nameHash(entry.service)
        let mask = hashes.count - 1
        var index = Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while hashes[index] != 0 {
            if hashes[index] == hash && slots[index].service == entry.service && slots[index].name == entry.name {
                if entry.rank > slots[index].rank { slots[index] = entry }
                byKey.append(slots[index])
                return byKey.count - 1
            }
            index = (index + 1) & mask
        }
        hashes[index] = hash
        slots[index] = entry
        order.append(entry)
        byKey.append(entry)
        return byKey.count - 1
    }
}
let placeholder = Entry("", "") { placeholder }
let registry = Mutex(Table())
"""


def registry_key(i: int) -> list[str]:
    """r's code per protocol: c's, with the registration made into an entry of the registry and the first use
    claiming the entry's slot under the lock, making the instance outside it, and keeping it under the lock."""
    return [
        f"@exclusivity(unchecked) var slot{i} = -1",
        f"final class Made{i} {{ let instance: any Service{i}; init(_ instance: any Service{i}) "
        f"{{ self.instance = instance }} }}",
        f"@inline(__always) func enter{i}(_ table: inout Table) {{",
        f"    slot{i} = table.add(Entry(\"App.Service{i}\", \"App.{implementation(i)}\") {{",
        f"        Made{i}({implementation(i)}())",
        "    })",
        "}",
        f"@inline(__always) func resolve(_: (any Service{i}).Type) -> any Service{i} {{",
        "    let (entry, made) = registry.withLock { table -> (Entry, AnyObject?) in",
        f"        let entry = table.byKey[slot{i}]",
        "        if let made = entry.made { return (entry, made) }",
        "        precondition(!entry.creating, \"made on one thread only\")",
        "        entry.creating = true",
        "        return (entry, nil)",
        "    }",
        f"    if let made {{ return unsafeDowncast(made, to: Made{i}.self).instance }}",
        f"    let instance = unsafeDowncast(entry.make(), to: Made{i}.self)",
        "    registry.withLock { _ in",
        "        entry.made = instance",
        "        entry.creating = false",
        "    }",
        "    return instance.instance",
        "}",
    ]


# The registry of n: r's duties for name-bound records, as C macros write them (`{"service":…,"impl":…,"file":…,
# "line":…}`, NUL-terminated, one after another in memory): registration parses each record and indexes an entry by its
# service's name; the first use by `P.self` reads the protocol's name from `(any P)`'s metadata, finds the entry,
# binds the implementation's name to a type of the image that holds the records, checks that the type conforms to
# `Makeable` (the registry's `init()`) and to `P`, makes the instance through `Makeable` and assembles `any P` from
# it. The image's conformance records are walked once (its types, by name, that conform to `Makeable`; every
# conformance, by type and protocol), every address read from them checked against the image's loaded bounds.
NAME_BOUND = """\
import Glibc
import Synchronization
protocol Makeable { init() }
struct Probe: Makeable {}
@inline(__always) func fnv(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> UInt {
    var hash: UInt = 0xcbf2_9ce4_8422_2325
    for offset in 0..<count { hash = (hash ^ UInt(bytes[offset])) &* 0x100_0000_01B3 }
    return hash | 1
}
@inline(__always) func cLength(_ text: UnsafePointer<UInt8>) -> Int {
    var length = 0
    while text[length] != 0 { length += 1 }
    return length
}
// ---- The image's metadata (swift/ABI/Metadata.h), every address checked against its loaded bounds ----
struct Image {
    var low: UInt = 0, high: UInt = 0, conformances: UnsafeRawPointer? = nil, count = 0
    @inline(__always) func holds(_ address: UnsafeRawPointer, _ size: Int) -> Bool {
        UInt(bitPattern: address) >= low && UInt(bitPattern: address) &+ UInt(size) <= high
    }
    @inline(__always) func direct(_ field: UnsafeRawPointer, _ size: Int) -> UnsafeRawPointer? {
        let offset = Int(field.load(as: Int32.self))
        guard offset != 0, holds(field + offset, size) else { return nil }
        return field + offset
    }
    @inline(__always) func indirectable(_ field: UnsafeRawPointer, _ size: Int) -> UnsafeRawPointer? {
        let offset = Int(field.load(as: Int32.self))
        if offset & 1 == 0 { return direct(field, size) }
        guard holds(field + (offset & ~1), 8), let target = (field + (offset & ~1)).load(as: UnsafeRawPointer?.self)
        else { return nil }
        return target  // another image's (a protocol of the standard library): only compared, never read
    }
    /// The type a conformance descriptor is of: a non-generic class, struct or enum of this image, or nil.
    func subject(_ conformance: UnsafeRawPointer) -> UnsafeRawPointer? {
        let flags = conformance.load(fromByteOffset: 12, as: UInt32.self)
        guard (flags >> 8) & 0xff == 0, var type = direct(conformance + 4, 4) else { return nil }
        switch (flags >> 3) & 7 {  // the type reference's kind
        case 0: break
        case 1:
            guard holds(type, 8), let target = type.load(as: UnsafeRawPointer?.self) else { return nil }
            type = target
        default: return nil
        }
        guard holds(type, 20) else { return nil }
        let kind = type.load(as: UInt32.self)
        return (16...18).contains(kind & 0x1f) && kind & 0x80 == 0 ? type : nil
    }
    /// Whether `descriptor`'s qualified name (its module's name, then each parent's, then its own, joined by dots) is
    /// `text`.
    func named(_ descriptor: UnsafeRawPointer, _ text: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        prefix(descriptor, text, count) == count
    }
    /// The length of `text`'s prefix that is `descriptor`'s qualified name, or -1.
    func prefix(_ descriptor: UnsafeRawPointer, _ text: UnsafePointer<UInt8>, _ count: Int) -> Int {
        let kind = descriptor.load(as: UInt32.self) & 0x1f
        guard kind == 0 || kind == 3 || (16...18).contains(kind),
            let name = direct(descriptor + 8, 1)?.assumingMemoryBound(to: UInt8.self)
        else { return -1 }
        var at = 0
        if kind != 0 {
            guard let parent = indirectable(descriptor + 4, 12), holds(parent, 12) else { return -1 }
            at = prefix(parent, text, count)
            guard at >= 0 && at < count && text[at] == UInt8(ascii: ".") else { return -1 }
            at += 1
        }
        var offset = 0
        while name[offset] != 0 {
            guard at < count && text[at] == name[offset] else { return -1 }
            (at, offset) = (at + 1, offset + 1)
        }
        return at
    }
}
/// Open addressing by a hash (never 0), linear probing; sized once.
struct Table<Value> {
    var hashes: [UInt]
    var values: [Value?]
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        (hashes, values) = (Array(repeating: 0, count: size), Array(repeating: nil, count: size))
    }
    /// The slot of the first value of `hash` that `match` accepts, or the empty slot where it would go.
    @inline(__always) func slot(_ hash: UInt, _ match: (Value) -> Bool) -> Int {
        let mask = hashes.count - 1
        var index = Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        while hashes[index] != 0 {
            if hashes[index] == hash && match(values[index]!) { return index }
            index = (index + 1) & mask
        }
        return index
    }
}
typealias Visit = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?) -> Bool
/// The image that holds this code (its `__dso_handle`): its loaded bounds, and its conformance records as the image
/// registered them with the runtime (the registration's base address is the image's).
func thisImage() -> Image {
    var image = Image()
    // dl_iterate_phdr (<link.h>, which Glibc's module leaves out): dl_phdr_info is the load address, the name, the
    // program headers and their count; an Elf64_Phdr is 56 bytes, p_type first, p_vaddr at 16, p_memsz at 40.
    typealias Headers = @convention(c) (UnsafeRawPointer, Int, UnsafeMutableRawPointer?) -> Int32
    let iterate = unsafeBitCast(dlsym(nil, "dl_iterate_phdr"),
                                to: (@convention(c) (Headers, UnsafeMutableRawPointer?) -> Int32).self)
    _ = iterate({ info, _, context in
        let base = info.load(as: UInt.self)
        guard let headers = info.load(fromByteOffset: 16, as: UnsafeRawPointer?.self) else { return 0 }
        var low = UInt.max, high: UInt = 0
        for index in 0..<Int(info.load(fromByteOffset: 24, as: UInt16.self)) where
            headers.load(fromByteOffset: 56 * index, as: UInt32.self) == 1  // PT_LOAD
        {
            let start = base &+ headers.load(fromByteOffset: 56 * index + 16, as: UInt.self)
            let size = headers.load(fromByteOffset: 56 * index + 40, as: UInt.self)
            (low, high) = (min(low, start), max(high, start &+ size))
        }
        let handle = UInt(bitPattern: #dsohandle)
        guard handle >= low && handle < high else { return 0 }
        let image = context!.assumingMemoryBound(to: Image.self)
        (image.pointee.low, image.pointee.high) = (low, high)
        return 1
    }, &image)
    let enumerate = unsafeBitCast(dlsym(nil, "swift_enumerateAllMetadataSections"),
                                  to: (@convention(c) (Visit, UnsafeMutableRawPointer?) -> Void).self)
    enumerate({ sections, context in
        let image = context!.assumingMemoryBound(to: Image.self)
        guard sections.load(as: UInt.self) >= 1,
            let base = sections.load(fromByteOffset: 8, as: UnsafeRawPointer?.self), image.pointee.holds(base, 1)
        else { return true }
        image.pointee.conformances = sections.load(fromByteOffset: 48, as: UnsafeRawPointer?.self)
        image.pointee.count = sections.load(fromByteOffset: 56, as: Int.self) / 4
        return false
    }, &image)
    precondition(image.conformances != nil && image.holds(image.conformances!, image.count * 4), "this image")
    return image
}
/// This image's conformances: those to `Makeable` by their type's name, every one by its type and protocol.
final class Conformances {
    let image: Image
    let makeable: Table<UnsafeRawPointer>
    let all: Table<UnsafeRawPointer>
    let witnessTable: @convention(c) (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer?) -> UnsafeRawPointer
    init() {
        let image = thisImage()
        let probe = unsafeBitCast(Probe.self as any Makeable.Type, to: (UnsafeRawPointer, UnsafeRawPointer).self)
        let makeableProtocol = image.indirectable(probe.1.load(as: UnsafeRawPointer.self), 12)!
        var makeable = Table<UnsafeRawPointer>(capacity: image.count)
        var all = Table<UnsafeRawPointer>(capacity: image.count)
        for index in 0..<image.count {
            guard let conformance = image.direct(image.conformances! + 4 * index, 16),
                let proto = image.indirectable(conformance, 12), let type = image.subject(conformance)
            else { continue }
            let key = Conformances.key(type, proto)
            let slot = all.slot(key) { _ in false }
            (all.hashes[slot], all.values[slot]) = (key, conformance)
            if proto == makeableProtocol, let name = image.direct(type + 8, 1)?.assumingMemoryBound(to: UInt8.self) {
                let hash = fnv(name, cLength(name))
                let slot = makeable.slot(hash) { _ in false }
                (makeable.hashes[slot], makeable.values[slot]) = (hash, conformance)
            }
        }
        (self.image, self.makeable, self.all) = (image, makeable, all)
        witnessTable = unsafeBitCast(dlsym(nil, "swift_getWitnessTable"),
            to: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer?) -> UnsafeRawPointer).self)
    }
    static func key(_ type: UnsafeRawPointer, _ proto: UnsafeRawPointer) -> UInt {
        (UInt(bitPattern: type) &* 0x9E37_79B9_7F4A_7C15 ^ UInt(bitPattern: proto)) | 1
    }
    /// The conformance to `Makeable` of the type of this image named `text`, and the type.
    func makeable(named text: Text) -> (conformance: UnsafeRawPointer, type: UnsafeRawPointer)? {
        let slot = makeable.slot(lastNameHash(text)) { image.named(image.subject($0)!, text.start, text.count) }
        guard let conformance = makeable.values[slot] else { return nil }
        return (conformance, image.subject(conformance)!)
    }
    /// The conformance of `type` to `proto`.
    func conformance(of type: UnsafeRawPointer, to proto: UnsafeRawPointer) -> UnsafeRawPointer? {
        let slot = all.slot(Conformances.key(type, proto)) {
            image.subject($0) == type && image.indirectable($0, 12) == proto
        }
        return all.values[slot]
    }
}
enum Index { static let shared = Conformances() }
func construct<M: Makeable>(_: M.Type, into buffer: UnsafeMutableRawPointer) {
    buffer.initializeMemory(as: M.self, to: M())
}
// ---- The registry ----
/// An instance made, as `any P` (an opaque existential container: three words of value, the type, the witness table).
final class Made {
    @exclusivity(unchecked) var container: (UInt, UInt, UInt, UInt, UInt) = (0, 0, 0, 0, 0)
}
typealias Text = (start: UnsafePointer<UInt8>, count: Int)
final class Entry {
    let service: Text, implementation: Text, file: Text
    let line: Int, rank: Int, image: UInt, bareHash: UInt
    let name: String? = nil
    @exclusivity(unchecked) var made: Made?
    @exclusivity(unchecked) var creating = false
    init(service: Text, implementation: Text, file: Text, line: Int, bareHash: UInt) {
        (self.service, self.implementation, self.file, self.line) = (service, implementation, file, line)
        (self.rank, self.image, self.bareHash) = (0, 1, bareHash)
    }
}
func same(_ a: Text, _ b: Text) -> Bool { a.count == b.count && memcmp(a.start, b.start, a.count) == 0 }
struct Registry {
    var byName = Table<Entry>(capacity: 0)
    var order: [Entry] = []
    mutating func add(_ entries: [Entry]) {
        if byName.hashes.count < (order.count + entries.count) * 2 {
            var grown = Table<Entry>(capacity: order.count + entries.count)
            for entry in order {
                let slot = grown.slot(entry.bareHash) { _ in false }
                (grown.hashes[slot], grown.values[slot]) = (entry.bareHash, entry)
            }
            byName = grown
        }
        order.reserveCapacity(order.count + entries.count)
        for entry in entries {
            let slot = byName.slot(entry.bareHash) { same($0.service, entry.service) && $0.name == entry.name }
            if byName.hashes[slot] == 0 {
                (byName.hashes[slot], byName.values[slot]) = (entry.bareHash, entry)
                order.append(entry)
            } else if entry.rank > byName.values[slot]!.rank {
                byName.values[slot] = entry
            }
        }
    }
}
let registry = Mutex(Registry())
/// The record at `bytes`, `{"key":"value" or number, …}` (keys service, impl, file and line), and the byte after it.
func parse(_ bytes: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> (Entry, UnsafePointer<UInt8>) {
    var at = bytes
    func expect(_ byte: Unicode.Scalar) {
        precondition(at < end && at[0] == UInt8(ascii: byte), "expected \\(byte)")
        at += 1
    }
    func string() -> Text {
        expect("\\"")
        let start = at
        guard let close = memchr(start, Int32(UInt8(ascii: "\\"")), end - start) else {
            preconditionFailure("an unterminated string")
        }
        let count = UnsafeRawPointer(close) - UnsafeRawPointer(start)
        precondition(memchr(start, Int32(UInt8(ascii: "\\\\")), count) == nil, "an escape (C macros write none)")
        at = start + count + 1
        return (start, count)
    }
    var service: Text?, implementation: Text?, file: Text = (bytes, 0), line = 0
    expect("{")
    while true {
        let key = string()
        expect(":")
        if at < end && at[0] == UInt8(ascii: "\\"") {
            let value = string()
            if key.count == 7 && memcmp(key.start, "service", 7) == 0 { service = value }
            if key.count == 4 && memcmp(key.start, "impl", 4) == 0 { implementation = value }
            if key.count == 4 && memcmp(key.start, "file", 4) == 0 { file = value }
        } else {
            var number = 0
            while at < end && at[0] >= UInt8(ascii: "0") && at[0] <= UInt8(ascii: "9") {
                number = number &* 10 &+ Int(at[0] &- UInt8(ascii: "0"))
                at += 1
            }
            if key.count == 4 && memcmp(key.start, "line", 4) == 0 { line = number }
        }
        if at < end && at[0] == UInt8(ascii: "}") { break }
        expect(",")
    }
    guard let service, let implementation else { preconditionFailure("expected service and impl") }
    let entry = Entry(service: service, implementation: implementation, file: file, line: line,
                      bareHash: lastNameHash(service))
    return (entry, at + 1)
}
/// The hash of `text`'s last name (after its last dot).
@inline(__always) func lastNameHash(_ text: Text) -> UInt {
    var index = text.count
    while index > 0 && text.start[index - 1] != UInt8(ascii: ".") { index -= 1 }
    return fnv(text.start + index, text.count - index)
}
@inline(never) func registerRecords(_ records: StaticString) {
    var entries: [Entry] = []
    var at = records.utf8Start
    let end = at + records.utf8CodeUnitCount
    while at < end {
        let (entry, next) = parse(at, end)
        entries.append(entry)
        at = next
        precondition(at < end && at[0] == 0, "expected the record's NUL")
        at += 1
    }
    registry.withLock { $0.add(entries) }
}
/// The protocol of `existential` (`any P`, one Swift protocol, not class-bound), its last name's hash.
@inline(__always) func serviceProtocol(_ existential: UnsafeRawPointer) -> (UnsafeRawPointer, UInt) {
    let flags = existential.load(fromByteOffset: 8, as: UInt32.self)
    precondition(existential.load(as: UInt.self) == 0x303 && flags & 0xff00_0000 == 0x8000_0000 && flags & 0xffffff == 1
        && existential.load(fromByteOffset: 12, as: UInt32.self) == 1, "any P of one Swift protocol")
    let reference = existential.load(fromByteOffset: 16, as: UInt.self)
    precondition(reference & 1 == 0, "a Swift protocol")
    let proto = UnsafeRawPointer(bitPattern: reference)!
    let name = (proto + 8 + Int(proto.load(fromByteOffset: 8, as: Int32.self))).assumingMemoryBound(to: UInt8.self)
    return (proto, fnv(name, cLength(name)))
}
@inline(never) func instance(of existential: UnsafeRawPointer) -> Made {
    let (proto, hash) = serviceProtocol(existential)
    let index = Index.shared  // made once, outside the lock
    let (entry, made) = registry.withLock { registry -> (Entry, Made?) in
        let slot = registry.byName.slot(hash) { index.image.named(proto, $0.service.start, $0.service.count) }
        guard let entry = registry.byName.values[slot] else { fatalError("no registration of this service") }
        if let made = entry.made { return (entry, made) }
        precondition(!entry.creating, "made on one thread only")
        entry.creating = true
        return (entry, nil)
    }
    if let made { return made }
    let instance = bind(entry, proto)
    registry.withLock { _ in
        entry.made = instance
        entry.creating = false
    }
    return instance
}
/// Binds `entry`'s implementation by name to a type of this image conforming to `Makeable` and to `proto`, and
/// makes its instance as `any P`.
func bind(_ entry: Entry, _ proto: UnsafeRawPointer) -> Made {
    let index = Index.shared
    guard let (makeable, type) = index.makeable(named: entry.implementation) else {
        fatalError("no Makeable type of this name in the records' image")
    }
    guard let conformance = index.conformance(of: type, to: proto) else { fatalError("no conformance to the service") }
    guard let access = index.image.direct(type + 12, 1) else { fatalError("no access function") }
    let metadata = unsafeBitCast(access, to: (@convention(c) (Int) -> UnsafeRawPointer).self)(0)
    let witnesses = metadata.load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    precondition(witnesses.load(fromByteOffset: 80, as: UInt32.self) & 0x2_0000 == 0, "inline (BeeHive boxes others)")
    let made = Made()
    withUnsafeMutableBytes(of: &made.container) { buffer in
        let maker = (metadata, index.witnessTable(makeable, metadata, nil))
        construct(unsafeBitCast(maker, to: (any Makeable.Type).self), into: buffer.baseAddress!)
        buffer.storeBytes(of: metadata, toByteOffset: 24, as: UnsafeRawPointer.self)
        let witnesses = index.witnessTable(conformance, metadata, nil)
        buffer.storeBytes(of: witnesses, toByteOffset: 32, as: UnsafeRawPointer.self)
    }
    return made
}
@inline(__always) func resolve<T>(_ type: T.Type) -> T {
    let made = instance(of: unsafeBitCast(type, to: UnsafeRawPointer.self))
    return withUnsafeMutableBytes(of: &made.container) { $0.baseAddress!.assumingMemoryBound(to: T.self).pointee }
}
"""


def name_bound_record(i: int) -> str:
    return (f'{{\\"service\\":\\"App.Service{i}\\",\\"impl\\":\\"App.{implementation(i)}\\",'
            f'\\"file\\":\\"records.c\\",\\"line\\":{i + 1}}}\\0')


def wired(i: int) -> list[str]:
    return [f"enum Wired{i} {{ static let shared: any Service{i} = {implementation(i)}() }}",
            f"@inline(__always) func resolve(_: (any Service{i}).Type) -> any Service{i} {{ Wired{i}.shared }}"]


MAIN = """\
let mode = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "register"
if mode != "none" {
    registerAll()
    if mode == "type" || mode == "twice" { resolveAll() }
    if mode == "twice" { resolveAll() }
    if mode == "verify" { print("bad=\\(verifyAll())") }
}
print("sum=\\(sum) created=\\(created)")
"""


def program(variant: str, n: int) -> str:
    """The Swift source of one floor program (b3 has b2's source)."""
    kind = SOURCE_OF[variant]
    lines = ["var created = 0", "var sum = 0"]
    for i in range(n):
        lines += service_declarations(i)
    if kind == "b2":
        lines.append(KEYED_BY_TYPE)
    elif kind == "c":
        lines.append(GENERATED_KEYS)
        for i in range(n):
            lines += generated_key(i)
    elif kind == "r":
        lines.insert(0, REGISTRY)
        for i in range(n):
            lines += registry_key(i)
    elif kind == "n":
        lines.insert(0, NAME_BOUND)
        lines += [f"extension {implementation(i)}: Makeable {{}}" for i in range(n)]
        lines.append('let records: StaticString = "' + "".join(name_bound_record(i) for i in range(n)) + '"')
    else:
        for i in range(n):
            lines += wired(i)
    groups = range(0, n, GROUP)
    lines.append("@inline(never) func registerAll() {")
    if kind == "r":  # one lock for the batch
        lines += ["    registry.withLock { table in", f"        table.reserve({n})"]
        lines += [f"        register{g}(&table)" for g in groups] + ["    }", "}"]
    elif kind == "n":  # the records are read, not called
        lines += ["    registerRecords(records)", "}"]
    else:
        lines += {"b2": [f"    cells.reserveCapacity({n})"], "c": [f"    holders.reserveCapacity({n})"], "w": []}[kind]
        lines += [f"    register{g}()" for g in groups] + ["}"]
    for g in groups if kind != "n" else []:
        lines.append(f"@inline(never) func register{g}({'_ table: inout Table' if kind == 'r' else ''}) {{")
        for i in range(g, min(n, g + GROUP)):
            if kind == "b2":
                lines.append(f"    register(Service{i}.self) {{ {implementation(i)}() }}")
            elif kind == "c":
                lines.append(f"    register{i} {{ {implementation(i)}() }}")
            elif kind == "r":
                lines.append(f"    enter{i}(&table)")
        lines.append("}")
    lines.append("@inline(never) func resolveAll() {")
    lines += [f"    resolve{g}()" for g in groups] + ["}"]
    for g in groups:
        lines.append(f"@inline(never) func resolve{g}() {{")
        lines += [f"    sum &+= resolve(Service{i}.self).value()" for i in range(g, min(n, g + GROUP))]
        lines.append("}")
    for i in range(n):  # one small function per service: a single one of 2N inlined resolves takes -O minutes
        lines += [f"@inline(never) func verify{i}() -> Int {{",
                  f"    let x = resolve(Service{i}.self), y = resolve(Service{i}.self)",
                  f"    {'var' if is_class(i) else 'let'} bad = type(of: x) == {implementation(i)}.self && "
                  f"type(of: y) == {implementation(i)}.self ? 0 : 1"]
        if is_class(i):
            lines.append(f"    if (x as! {implementation(i)}) !== (y as! {implementation(i)}) {{ bad += 1 }}")
        lines += ["    sum &+= x.value() &+ y.value()", "    return bad", "}"]
    lines += ["@inline(never) func verifyAll() -> Int {", "    var bad = 0"]
    lines += [f"    bad += verify{i}()" for i in range(n)]
    lines += ["    return bad", "}", MAIN]
    return "\n".join(lines) + "\n"


def write(directory: Path, ns: list[int], variants: tuple[str, ...] = VARIANTS) -> dict[tuple[str, int], Path]:
    """Writes one source per (variant's source, N) into `directory`, leaving unchanged files alone."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for n in ns:
        for variant in variants:
            path = directory / f"floor_{SOURCE_OF[variant]}_{n}.swift"
            text = program(variant, n)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
            paths[(variant, n)] = path
    return paths


def swiftc() -> str:
    return shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"


def build(variant: str, n: int, source: Path, directory: Path) -> tuple[Path, float]:
    binary = directory / f"floor_{variant}_{n}"
    started = time.monotonic()
    if not binary.exists() or binary.stat().st_mtime < source.stat().st_mtime:
        subprocess.run([swiftc(), "-O", *FLAGS.get(variant, []), str(source), "-o", str(binary)], check=True)
    return binary, time.monotonic() - started


def answers(binary: Path, mode: str) -> dict[str, int]:
    out = subprocess.run([str(binary), mode], capture_output=True, text=True, check=True).stdout
    return {key: int(value) for key, value in re.findall(r"(\w+)=(-?\d+)", out)}


def check(variant: str, n: int, binary: Path) -> None:
    """Refuses a program whose answers are wrong: sums, instances made, dynamic types, identity of classes."""
    once = n * (n - 1) // 2
    expected = {"type": {"sum": once, "created": n}, "twice": {"sum": 2 * once, "created": n},
                "verify": {"sum": 2 * once, "created": n, "bad": 0}, "register": {"sum": 0, "created": 0}}
    for mode, wanted in expected.items():
        got = answers(binary, mode)
        for key, value in wanted.items():
            if got.get(key) != value:
                raise SystemExit(f"floor_programs.py: {binary.name} {mode}: {key}={got.get(key)}, expected {value}")


def callgrind(binary: Path, mode: str, directory: Path) -> int:
    out = directory / f"callgrind.{binary.name}.{mode}.out"
    process = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary), mode],
                             capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", process.stderr)
    if process.returncode != 0 or not found:
        raise SystemExit(f"floor_programs.py: no instruction count for {binary.name} {mode}:\n{process.stderr[-2000:]}")
    out.unlink(missing_ok=True)
    return int(found.group(1))


def measure_one(variant: str, n: int, source: Path, directory: Path) -> dict:
    binary, seconds = build(variant, n, source, directory)
    check(variant, n, binary)
    ir = {mode: callgrind(binary, mode, directory) for mode in MODES}
    return {"variant": variant, "n": n, "flags": FLAGS.get(variant, []), "ir": ir, "buildSeconds": round(seconds, 1),
            "registration": (ir["register"] - ir["none"]) / n, "firstUse": (ir["type"] - ir["register"]) / n,
            "cached": (ir["twice"] - ir["type"]) / n}


def measure(ns: list[int], variants: list[str], work: Path, jobs: int, metatype: bool = True) -> dict:
    if not shutil.which("valgrind"):
        raise SystemExit("floor_programs.py: valgrind is not installed (apt-get install valgrind)")
    sources = write(work / "src", ns, tuple(variants))
    binaries = work / "bin"
    binaries.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([swiftc(), "--version"], capture_output=True, text=True).stdout.splitlines()
    result = {"swiftc": version[0] if version else "?", "ns": ns, "floors": [], "metatype": []}
    jobs_list = [(v, n) for n in ns for v in variants]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(measure_one, v, n, sources[(v, n)], binaries) for v, n in jobs_list]
        if metatype:
            futures += [pool.submit(naming_cost, n, str(binaries), swiftc()) for n in ns]
        for future in futures:
            row = future.result()
            if "variant" in row:
                result["floors"].append(row)
                print(f"floor {row['variant']:3} N = {row['n']:5,}: registration {row['registration']:9,.0f}  first use "
                      f"{row['firstUse']:9,.0f}  both {row['registration'] + row['firstUse']:9,.0f}  cached "
                      f"{row['cached']:7,.0f}  Ir per service (build {row['buildSeconds']:.0f} s)", file=sys.stderr)
            else:
                result["metatype"].append(row)
                print(f"naming (any P).self once, N = {row['n']:5,}: {row['perProtocol']:9,.0f} Ir per protocol",
                      file=sys.stderr)
    return result


def integer_list(text: str) -> list[int]:
    try:
        values = [int(item) for item in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N[,N...]; found '{text}'") from None
    if any(value <= 0 for value in values):
        raise argparse.ArgumentTypeError(f"expected N > 0; found '{text}'")
    return values


def variant_list(text: str) -> list[str]:
    names = list(VARIANTS) if text == "all" else text.split(",")
    for name in names:
        if name not in VARIANTS:
            raise argparse.ArgumentTypeError(f"unknown floor program '{name}' (choose from all, {', '.join(VARIANTS)})")
    return names


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="floor_programs.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    writer = commands.add_parser("write", help="write the Swift sources only")
    writer.add_argument("directory", type=Path)
    writer.add_argument("--n", type=integer_list, default=[10, 100, 1000])
    writer.add_argument("--variant", type=variant_list, default=list(VARIANTS))
    measurer = commands.add_parser("measure", help="write, build, check and count; JSON for report.py --floors")
    measurer.add_argument("--n", type=integer_list, default=[10, 100, 1000])
    measurer.add_argument("--variant", type=variant_list, default=list(VARIANTS))
    measurer.add_argument("--work", type=Path, required=True, help="scratch folder (sources, binaries)")
    measurer.add_argument("--jobs", type=int, default=2, help="builds and counts at a time (default 2)")
    measurer.add_argument("--no-metatype", action="store_true", help="leave out metatype_floor.py's naming cost")
    measurer.add_argument("--out", type=Path, help="JSON output (default: stdout)")
    args = parser.parse_args(argv)
    if args.command == "write":
        for path in sorted(set(write(args.directory, args.n, tuple(args.variant)).values())):
            print(path)
        return 0
    result = measure(args.n, args.variant, args.work, args.jobs, not args.no_metatype)
    text = json.dumps(result, indent=1) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
