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
