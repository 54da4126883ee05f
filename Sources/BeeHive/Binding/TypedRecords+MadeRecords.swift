extension TypedRecords {
    /// The records the accessors made, and the image of each, in memory of their own: an array of records, tuples or
    /// structs would make the runtime build the array's type (and the tuple's) at the first question, ~20 K
    /// instructions, and an object per record cost an allocation each.
    final class MadeRecords: ListNode {
        private let records: UnsafeMutablePointer<_BeeHiveTypedRecord>
        private let imageIDs: UnsafeMutablePointer<UInt64>
        private let capacity: Int
        private(set) var count = 0

        /// The next batch in a list of them (``Store/kept``).
        var next: MadeRecords?

        /// The image of the first record: every record of a kept batch comes from one section.
        var imageID: UInt64? { count > 0 ? imageIDs[0] : nil }

        init(capacity: Int) {
            self.capacity = capacity
            records = .allocate(capacity: capacity)
            imageIDs = .allocate(capacity: capacity)
        }

        deinit {
            records.deinitialize(count: count)
            records.deallocate()
            imageIDs.deallocate()
        }

        func append(_ record: consuming _BeeHiveTypedRecord, imageID: UInt64) {
            nextSlot(imageID: imageID).initialize(to: record)
        }

        /// Moves the record at `record` in (leaving that memory uninitialized), and returns where it is kept: valid as
        /// long as this batch, which never moves its records. No copy: no retain or release of its fields.
        func take(
            from record: UnsafeMutablePointer<_BeeHiveTypedRecord>, imageID: UInt64
        ) -> UnsafePointer<_BeeHiveTypedRecord> {
            let kept = nextSlot(imageID: imageID)
            kept.moveInitialize(from: record, count: 1)
            return UnsafePointer(kept)
        }

        /// Counts one more record of `imageID`; returns its memory, uninitialized, for the caller to fill.
        private func nextSlot(imageID: UInt64) -> UnsafeMutablePointer<_BeeHiveTypedRecord> {
            precondition(count < capacity, "more typed records than their sections hold")
            imageIDs[count] = imageID
            count += 1
            return records + (count - 1)
        }

        /// Calls `body` with each record and its image, in the order they were made.
        func forEach(_ body: (borrowing _BeeHiveTypedRecord, UInt64) -> Void) {
            for index in 0..<count { body(records[index], imageIDs[index]) }
        }
    }

    /// A node of a list linked by `next` (pending sections, kept records).
    protocol ListNode: AnyObject {
        var next: Self? { get set }
    }

    /// Unlinks the nodes of the list at `head` that `shouldRemove` picks, keeping the others in order; returns the
    /// list's first and last node.
    static func unlink<Node: ListNode>(
        _ head: Node?, where shouldRemove: (Node) -> Bool
    ) -> (first: Node?, last: Node?) {
        var first: Node?
        var last: Node?
        var node = head
        while let current = node {
            node = current.next
            current.next = nil
            guard !shouldRemove(current) else { continue }
            if let last { last.next = current } else { first = current }
            last = current
        }
        return (first, last)
    }
}
