import Testing

@testable import BeeHive

/// A key whose hash is chosen by the test, so that keys can collide on purpose.
private struct CollidingKey: TableKey {
    let name: String
    let tableHash: UInt
}

@Suite("KeyedTable: values by key, with open addressing")
struct KeyedTableTests {
    @Test("keys with the same hash keep their own values, and removing one leaves the others reachable")
    func collisionsAndRemoval() {
        var table = KeyedTable<CollidingKey, Int>()
        let keys = (0..<40).map { CollidingKey(name: "key\($0)", tableHash: UInt($0 % 3) + 1) }
        for (index, key) in keys.enumerated() { table[key] = index }
        #expect(table.count == 40)
        #expect(keys.map { table[$0] } == Array(0..<40))

        // Removed keys leave their slots behind; the keys after them on the same probe are still found.
        for key in keys where key.name.hasSuffix("0") { table[key] = nil }
        #expect(table.count == 36)
        for (index, key) in keys.enumerated() {
            #expect(table[key] == (key.name.hasSuffix("0") ? nil : index))
        }
        #expect(table[CollidingKey(name: "absent", tableHash: 1)] == nil)

        // A removed key can come back; growing drops the removed slots.
        table[keys[10]] = 1_010
        for index in 40..<200 { table[CollidingKey(name: "key\(index)", tableHash: UInt(index))] = index }
        #expect(table[keys[10]] == 1_010)
        #expect(table.count == 37 + 160)
        #expect(Set(table.keys.map(\.name)).count == table.count)
    }

    @Test("modify changes a value in place, and creates it from its initial value when absent")
    func modifyInPlace() {
        var table = KeyedTable<String, [Int]>()
        table.modify("a", initial: []) { $0.append(1) }
        table.modify("a", initial: [99]) { $0.append(2) }
        table.modify("b", initial: [7]) { $0.append(8) }
        #expect(table["a"] == [1, 2])
        #expect(table["b"] == [7, 8])
        table.removeAll { $0.count == 2 && $0.first == 1 }
        #expect(table["a"] == nil && table["b"] == [7, 8] && table.count == 1)
        table.reserveCapacity(1_000)
        #expect(table["b"] == [7, 8] && table.values == [[7, 8]])
    }
}

@Suite("AddressTable: values by a type's address")
struct AddressTableTests {
    @Test("removeAll(where:) forgets the values it picks; the others are still found past their slots")
    func removeAllWhere() {
        var table = AddressTable<Int>()
        // Addresses 16 apart, as metadata addresses are: many share a home slot in a small table.
        let addresses = (1...40).map { UInt($0) * 16 }
        for address in addresses { table[key: address] = Int(address) }
        table.removeAll { $0 % 3 == 0 }
        for address in addresses {
            #expect(table[key: address] == (address % 3 == 0 ? nil : Int(address)))
        }
        table[key: 48] = 1
        #expect(table[key: 48] == 1)
    }
}

/// Counts the instances alive, to see that the tables' storage releases what it holds.
private final class Tracked {
    nonisolated(unsafe) static var alive = 0
    let value: Int
    init(_ value: Int) {
        self.value = value
        Tracked.alive += 1
    }
    deinit { Tracked.alive -= 1 }
}

@Suite("Slots: the tables' storage is a value, and releases what it holds", .serialized)
struct SlotsTests {
    @Test("a copied table is changed apart from the original (copy on write)")
    func copyOnWrite() {
        var original = KeyedTable<String, Int>()
        for index in 0..<20 { original["key\(index)"] = index }
        var copy = original
        copy["key3"] = 300
        copy["new"] = 1
        #expect(original["key3"] == 3 && original["new"] == nil && original.count == 20)
        #expect(copy["key3"] == 300 && copy["new"] == 1 && copy.count == 21)

        var addresses = AddressTable<Int>()
        addresses[key: 8] = 1
        let before = addresses
        addresses[key: 8] = 2
        addresses[key: 16] = 3
        #expect(before[key: 8] == 1 && before[key: 16] == nil)
        #expect(addresses[key: 8] == 2 && addresses[key: 16] == 3)
    }

    @Test("values are released when replaced, removed, moved by growing, or when the last copy goes")
    func lifetimes() {
        let start = Tracked.alive
        do {
            var table = KeyedTable<String, Tracked>()
            for index in 0..<100 { table["key\(index)"] = Tracked(index) }  // grows several times
            #expect(Tracked.alive == start + 100)
            table["key1"] = Tracked(1_001)
            table["key2"] = nil
            #expect(Tracked.alive == start + 99)
            var copy = table
            copy["key3"] = Tracked(3_003)  // the copy gets slots of its own; the original keeps its value
            #expect(Tracked.alive == start + 100)
            #expect(table["key3"]?.value == 3 && copy["key3"]?.value == 3_003 && copy["key1"]?.value == 1_001)

            var addresses = AddressTable<Tracked>()
            for index in 1...50 { addresses[key: UInt(index * 16)] = Tracked(index) }
            #expect(Tracked.alive == start + 150)
            addresses.removeAll()
            #expect(Tracked.alive == start + 100)
        }
        #expect(Tracked.alive == start)
    }
}
