/// Writes binary property lists (`bplist00`) object by object, so that tests can build any file, hostile ones
/// included: objects that refer to themselves, chains thousands deep, markers no writer would emit.
///
/// References are 2 bytes (up to 65,536 objects); offsets are as wide as the file needs.
///
/// ```swift
/// var plist = BinaryPropertyListBuilder()
/// let array = plist.add([0xA1, 0x00, 0x00])   // an array of one: itself
/// let bytes = plist.file(top: array)
/// ```
struct BinaryPropertyListBuilder {
    private(set) var objects: [[UInt8]] = []

    /// Adds an object given as its bytes (marker first); returns its number.
    @discardableResult
    mutating func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    /// Adds an ASCII string object.
    mutating func ascii(_ text: String) -> Int { add(Self.marker(0x5, count: text.utf8.count) + Array(text.utf8)) }

    /// Adds a UTF-16 string object (big-endian units).
    mutating func utf16(_ units: [UInt16]) -> Int {
        add(Self.marker(0x6, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
    }

    /// Adds an array of the objects `elements`.
    mutating func array(_ elements: [Int]) -> Int {
        add(Self.marker(0xA, count: elements.count) + elements.flatMap(Self.reference))
    }

    /// Adds a dictionary of the objects `pairs` (key, value).
    mutating func dictionary(_ pairs: [(Int, Int)]) -> Int {
        add(
            Self.marker(0xD, count: pairs.count) + pairs.flatMap { Self.reference($0.0) }
                + pairs.flatMap { Self.reference($0.1) })
    }

    /// Adds `{service, impl}` with ASCII strings, plus `name` if given.
    mutating func serviceEntry(_ service: String, _ impl: String, name: String? = nil) -> Int {
        var pairs = [(ascii("service"), ascii(service)), (ascii("impl"), ascii(impl))]
        if let name { pairs.append((ascii("name"), ascii(name))) }
        return dictionary(pairs)
    }

    /// The marker byte of an object of `type` holding `count` items, with a length object when 15 or more.
    static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        guard count >= 15 else { return [type << 4 | UInt8(count)] }
        return [type << 4 | 0xF, 0x12] + bigEndian(count, size: 4)
    }

    static func reference(_ number: Int) -> [UInt8] { bigEndian(number, size: 2) }

    static func bigEndian(_ value: Int, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// The whole file: header, objects, offset table, and the trailer naming `top` as the root.
    func file(top: Int) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let offsetSize = bytes.count < 0x100 ? 1 : bytes.count < 0x1_0000 ? 2 : 4
        let tableOffset = bytes.count
        for offset in offsets { bytes += Self.bigEndian(offset, size: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), 2]
        bytes += Self.bigEndian(objects.count, size: 8) + Self.bigEndian(top, size: 8)
        bytes += Self.bigEndian(tableOffset, size: 8)
        return bytes
    }
}
