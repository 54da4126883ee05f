/// A reader for binary property lists (`bplist00`): linear time in the file's size, whatever the file says.
///
/// A binary property list is a table of objects that refer to each other by number, so a hostile file can
/// make an array contain itself, or share one object a million times at every level of a deep tree. This
/// reader reads each string, data and container object once (by its offset) and shares the value, reports
/// an object met again inside itself as a cycle, and bounds the nesting, counting shared objects at every
/// place they appear, by ``FileReader/maximumDepth``. Every offset, count and reference is checked against
/// the file before it is used.
///
/// Problems of structure (a reference to no object, an offset outside the file, a cycle) fail the file.
/// Objects that cannot be read as values (an unknown marker, text that is not ASCII, UTF-8 or UTF-16, a key
/// that is not a string, a set) are ``FileValue/invalid(_:)`` and cost only their entry.
struct BinaryPropertyListReader {
    private let bytes: UnsafeRawBufferPointer
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let tableOffset: Int
    /// Strings, data and containers already read (or being read), by object offset.
    private var memo: [Int: Memo] = [:]

    private enum Memo {
        /// A container being read: meeting it again is a cycle.
        case reading
        /// A value read, with the levels of containers it spans (0 for a scalar).
        case done(FileValue, height: Int)
    }

    private static let trailerSize = 32
    private static let headerSize = 8

    private init(
        _ bytes: UnsafeRawBufferPointer, offsetSize: Int, referenceSize: Int, objectCount: Int, tableOffset: Int
    ) {
        self.bytes = bytes
        self.offsetSize = offsetSize
        self.referenceSize = referenceSize
        self.objectCount = objectCount
        self.tableOffset = tableOffset
    }

    /// Reads a whole binary property list.
    static func read(_ bytes: UnsafeRawBufferPointer) throws(FileSyntaxError) -> FileValue {
        func fail(_ message: String, at offset: Int? = nil) -> FileSyntaxError {
            FileSyntaxError(.binaryPropertyList, message, at: offset)
        }
        let version = String(decoding: bytes.prefix(8), as: UTF8.self)
        guard bytes.starts(with: "bplist00".utf8) else {
            throw fail("expected the header \"bplist00\" (binary property list version 00); found \"\(version)\"")
        }
        guard bytes.count >= headerSize + 1 + trailerSize else {
            throw fail(
                "expected a binary property list of at least \(headerSize + 1 + trailerSize) bytes (header, one "
                    + "object, trailer); found \(bytes.count) bytes")
        }
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objectCount = unsigned(bytes, at: trailer + 8, size: 8)
        let topObject = unsigned(bytes, at: trailer + 16, size: 8)
        let tableOffset = unsigned(bytes, at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw fail(
                "expected offset and reference sizes of 1 to 8 bytes in the trailer; found \(offsetSize) and "
                    + "\(referenceSize)", at: trailer + 6)
        }
        guard tableOffset >= UInt64(headerSize + 1), tableOffset <= UInt64(trailer) else {
            throw fail(
                "expected the offset table to start between byte \(headerSize + 1) and the trailer at byte "
                    + "\(trailer); found byte \(tableOffset)", at: trailer + 24)
        }
        guard objectCount >= 1, objectCount <= UInt64((trailer - Int(tableOffset)) / offsetSize) else {
            throw fail(
                "expected between 1 and \((trailer - Int(tableOffset)) / offsetSize) objects (what the offset "
                    + "table's \(trailer - Int(tableOffset)) bytes hold); found \(objectCount)", at: trailer + 8)
        }
        guard topObject < objectCount else {
            throw fail(
                "expected a top object below the object count \(objectCount); found object \(topObject)",
                at: trailer + 16)
        }
        var reader = BinaryPropertyListReader(
            bytes, offsetSize: offsetSize, referenceSize: referenceSize, objectCount: Int(objectCount),
            tableOffset: Int(tableOffset))
        return try reader.object(Int(topObject), depth: 0).value
    }

    /// The big-endian unsigned integer of `size` bytes at `offset` (in bounds).
    private static func unsigned(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func fail(_ message: String, at offset: Int) -> FileSyntaxError {
        FileSyntaxError(.binaryPropertyList, message, at: offset)
    }

    /// The offset of object `number`, checked to lie among the objects.
    private func offset(of number: Int) throws(FileSyntaxError) -> Int {
        let entry = tableOffset + number * offsetSize
        let offset = Self.unsigned(bytes, at: entry, size: offsetSize)
        guard offset >= UInt64(Self.headerSize), offset < UInt64(tableOffset) else {
            throw fail(
                "expected object \(number) between byte \(Self.headerSize) and the offset table at byte "
                    + "\(tableOffset); found byte \(offset)", at: entry)
        }
        return Int(offset)
    }

    /// Checks that `count` items of `size` bytes from `start` end before the offset table.
    private func checkFits(
        _ count: Int, of size: Int, from start: Int, object number: Int, at offset: Int
    )
        throws(FileSyntaxError)
    {
        guard start <= tableOffset, count <= (tableOffset - start) / size else {
            throw fail(
                "expected object \(number) to end before the offset table at byte \(tableOffset); found "
                    + "\(count) × \(size) bytes from byte \(start)", at: offset)
        }
    }

    /// The length of the object at `offset` whose marker's low nibble is `info`, and where its content
    /// starts: `info` itself, or a following integer object when `info` is 15.
    private func length(_ info: Int, at offset: Int, object number: Int) throws(FileSyntaxError) -> (Int, Int) {
        guard info == 0xF else { return (info, offset + 1) }
        let marker = offset + 1
        guard marker < tableOffset, bytes[marker] >> 4 == 0x1, bytes[marker] & 0xF <= 3 else {
            throw fail("expected an integer marker 0x10-0x13 for the length of object \(number)", at: marker)
        }
        let size = 1 << Int(bytes[marker] & 0xF)
        try checkFits(1, of: size, from: marker + 1, object: number, at: offset)
        let value = Self.unsigned(bytes, at: marker + 1, size: size)
        guard value <= UInt64(tableOffset) else {
            throw fail("expected the length of object \(number) to fit in the file; found \(value)", at: marker)
        }
        return (Int(value), marker + 1 + size)
    }

    /// Object `number`, with the levels of containers it spans; its containers sit at `depth` + 1.
    private mutating func object(_ number: Int, depth: Int) throws(FileSyntaxError) -> (value: FileValue, height: Int) {
        let offset = try offset(of: number)
        let marker = bytes[offset]
        let type = marker >> 4
        let info = Int(marker & 0xF)
        switch memo[offset] {
        case .reading?:
            throw fail(
                "expected objects that do not contain themselves; found object \(number) inside itself, a "
                    + "reference cycle", at: offset)
        case .done(let value, let height)?:
            guard depth + height <= FileReader.maximumDepth else { throw tooDeep(number, offset, depth + height) }
            return (value, height)
        case nil: break
        }
        switch type {
        case 0x0:
            switch info {
            case 0x0: return (.null, 0)
            case 0x8: return (.bool(false), 0)
            case 0x9: return (.bool(true), 0)
            default: return (unknown(marker), 0)
            }
        case 0x1:
            guard info <= 4 else { return (unknown(marker), 0) }
            let size = 1 << info
            try checkFits(1, of: size, from: offset + 1, object: number, at: offset)
            return (integer(at: offset + 1, size: size), 0)
        case 0x2:
            guard info == 2 || info == 3 else { return (unknown(marker), 0) }
            let size = 1 << info
            try checkFits(1, of: size, from: offset + 1, object: number, at: offset)
            let bits = Self.unsigned(bytes, at: offset + 1, size: size)
            return (.real(size == 4 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits)), 0)
        case 0x3:
            guard info == 3 else { return (unknown(marker), 0) }
            try checkFits(1, of: 8, from: offset + 1, object: number, at: offset)
            return (.date(Double(bitPattern: Self.unsigned(bytes, at: offset + 1, size: 8))), 0)
        case 0x8:
            let size = info + 1
            try checkFits(1, of: size, from: offset + 1, object: number, at: offset)
            guard size <= 8 else { return (.invalid("a UID of \(size) bytes (at most 8 are read)"), 0) }
            return (.uid(Self.unsigned(bytes, at: offset + 1, size: size)), 0)
        case 0x4, 0x5, 0x6, 0x7:
            let (count, start) = try length(info, at: offset, object: number)
            try checkFits(count, of: type == 0x6 ? 2 : 1, from: start, object: number, at: offset)
            let value = text(type, count: count, from: start)
            memo[offset] = .done(value, height: 0)
            return (value, 0)
        case 0xA, 0xD:
            let (count, start) = try length(info, at: offset, object: number)
            try checkFits(count, of: referenceSize * (type == 0xD ? 2 : 1), from: start, object: number, at: offset)
            guard depth + 1 <= FileReader.maximumDepth else { throw tooDeep(number, offset, depth + 1) }
            memo[offset] = .reading
            let result =
                type == 0xA
                ? try array(count, from: start, depth: depth + 1, object: number)
                : try dictionary(count, from: start, depth: depth + 1, object: number)
            memo[offset] = .done(result.value, height: result.height)
            return result
        case 0xB, 0xC:
            return (.invalid(type == 0xC ? "a set (property lists hold arrays, not sets)" : "an ordered set"), 0)
        default:
            return (unknown(marker), 0)
        }
    }

    private func tooDeep(_ number: Int, _ offset: Int, _ level: Int) -> FileSyntaxError {
        fail(
            "expected arrays and dictionaries nested at most \(FileReader.maximumDepth) levels deep; found "
                + "object \(number) reaching level \(level)", at: offset)
    }

    private func unknown(_ marker: UInt8) -> FileValue {
        .invalid("an object of unknown type (marker 0x\(String(marker, radix: 16)))")
    }

    /// The object number stored at `position` (a reference), checked to name an object.
    private func reference(at position: Int, from number: Int) throws(FileSyntaxError) -> Int {
        let value = Self.unsigned(bytes, at: position, size: referenceSize)
        guard value < UInt64(objectCount) else {
            throw fail(
                "expected object \(number) to refer to objects 0 to \(objectCount - 1); found a reference to "
                    + "object \(value)", at: position)
        }
        return Int(value)
    }

    private mutating func array(
        _ count: Int, from start: Int, depth: Int, object number: Int
    )
        throws(FileSyntaxError) -> (value: FileValue, height: Int)
    {
        var elements: [FileValue] = []
        elements.reserveCapacity(count)
        var height = 1
        for position in stride(from: start, to: start + count * referenceSize, by: referenceSize) {
            let element = try object(reference(at: position, from: number), depth: depth)
            elements.append(element.value)
            height = max(height, element.height + 1)
        }
        return (.array(elements), height)
    }

    private mutating func dictionary(
        _ count: Int, from start: Int, depth: Int, object number: Int
    )
        throws(FileSyntaxError) -> (value: FileValue, height: Int)
    {
        var fields: [FileField] = []
        fields.reserveCapacity(count)
        var height = 1
        var badKey: InvalidFileValue?
        let values = start + count * referenceSize
        for index in 0..<count {
            let key = try object(reference(at: start + index * referenceSize, from: number), depth: depth)
            let value = try object(reference(at: values + index * referenceSize, from: number), depth: depth)
            height = max(height, key.height + 1, value.height + 1)
            switch key.value {
            case .string(let key): fields.append(FileField(key: key, value: value.value))
            case .invalid(let invalid): badKey = badKey ?? invalid
            case let other:
                badKey = badKey ?? InvalidFileValue(found: "\(other.kind), not a string", isUTF8Problem: false)
            }
        }
        if let badKey {
            return (.invalid("a dictionary whose key is \(badKey.found)", isUTF8Problem: badKey.isUTF8Problem), height)
        }
        return (.dictionary(fields), height)
    }

    /// An integer object of `size` bytes: 1, 2 and 4 bytes are unsigned, 8 bytes signed, 16 bytes a signed
    /// 128-bit integer (kept when it fits in 64 bits).
    private func integer(at position: Int, size: Int) -> FileValue {
        switch size {
        case 1, 2, 4: return .integer(Int(Self.unsigned(bytes, at: position, size: size)))
        case 8: return .integer(Int(Int64(bitPattern: Self.unsigned(bytes, at: position, size: 8))))
        default:
            let high = Self.unsigned(bytes, at: position, size: 8)
            let low = Int64(bitPattern: Self.unsigned(bytes, at: position + 8, size: 8))
            guard high == (low < 0 ? UInt64.max : 0) else {
                return .invalid("an integer outside the 64-bit range (a 128-bit integer)")
            }
            return .integer(Int(low))
        }
    }

    /// A data (0x4), ASCII (0x5), UTF-16 (0x6) or UTF-8 (0x7) object of `count` bytes or UTF-16 units.
    private func text(_ type: UInt8, count: Int, from start: Int) -> FileValue {
        switch type {
        case 0x4:
            return .data(Array(UnsafeRawBufferPointer(rebasing: bytes[start..<start + count])))
        case 0x5:
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<start + count])
            if let bad = slice.firstIndex(where: { $0 >= 0x80 }) {
                return .invalid(
                    "an ASCII string with byte 0x\(String(slice[bad], radix: 16)) at offset \(start + bad)",
                    isUTF8Problem: true)
            }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x7:
            return FileReader.utf8String(
                UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), at: start, in: "a UTF-8 string")
        default:
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for position in stride(from: start, to: start + 2 * count, by: 2) {
                units.append(UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]))
            }
            var iterator = units.makeIterator()
            var decoder = UTF16()
            var position = 0
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): position += UTF16.width(scalar)
                case .emptyInput: return .string(String(decoding: units, as: UTF16.self))
                case .error:
                    return .invalid(
                        "a UTF-16 string with an unpaired surrogate 0x\(String(units[position], radix: 16)) at "
                            + "offset \(start + 2 * position)", isUTF8Problem: true)
                }
            }
        }
    }
}
