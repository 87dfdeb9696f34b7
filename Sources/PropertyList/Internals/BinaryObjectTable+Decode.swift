extension BinaryObjectTable {
    /// An array or dictionary being built, with the references still to
    /// read.
    private struct OpenContainer {
        var container: Container
        var position = 0
        var items: [PropertyListItem] = []
        var entries: [PropertyListDictionary.Entry] = []
        var pendingKey: (key: String, location: SourceLocation)?
        /// Key to entry index, built once a dictionary is large enough
        /// for hashing to beat a linear scan.
        var keyIndex: [String: Int]?
    }

    /// Decodes object `index` and everything it contains.
    ///
    /// Iterative rather than recursive: containers nest on an explicit
    /// stack, so no file can exhaust the call stack. A method of the
    /// table, which the reader holds: the whole record is decoded with
    /// one access to the reader's table, where a method of the reader
    /// copied the table (and checked the access) at every object.
    ///
    /// - Parameters:
    ///   - enclosingDepth: how many containers enclose the object.
    ///   - path: the offsets of those containers, for cycles.
    ///   - announced: whether the object was counted by its container
    ///     already (else it counts as a root).
    mutating func decode(
        object index: Int, enclosingDepth: Int, path: [Int], announced: Bool = false
    ) throws(PropertyListError) -> PropertyListItem {
        var stack: [OpenContainer] = []
        var index = index
        if !announced {
            try announceRoot(at: try offset(ofObject: index))
        }

        nextObject: while true {
            var completed: PropertyListItem?
            if let hit = cached(index) {
                completed = PropertyListItem(hit.value, at: location(hit.offset))
            } else {
                let offset = try offset(ofObject: index)
                switch try region.byte(offset) >> 4 {
                case 0xA, 0xC, 0xD:
                    // The enclosing containers: a cycle returns to one.
                    // A linear scan: the stack is at most `maximumDepth`.
                    if path.contains(offset) || stack.contains(where: { $0.container.offset == offset }) {
                        throw malformed(
                            "object \(index) at byte \(offset) contains itself (a cycle)", at: offset)
                    }
                    if enclosingDepth + stack.count + 1 > BinaryPropertyListReader.maximumDepth {
                        throw PropertyListError(
                            .tooDeeplyNested, PropertyListReader.tooDeeplyNestedMessage, at: location(offset))
                    }
                    let container = try container(at: offset)
                    if container.count == 0 {
                        let value: PropertyListValue =
                            container.isDictionary ? .dictionary(PropertyListDictionary()) : .array([])
                        completed = PropertyListItem(value, at: location(offset))
                    } else {
                        var open = OpenContainer(container: container)
                        // The count is checked against the file's bytes and
                        // counted against the value budget: reserving is safe.
                        if container.isDictionary {
                            open.entries.reserveCapacity(container.count)
                        } else {
                            open.items.reserveCapacity(container.count)
                        }
                        stack.append(open)
                    }
                default:
                    completed = PropertyListItem(try scalar(object: index, at: offset), at: location(offset))
                }
            }

            // Hand finished values to their container, and find the next
            // object to decode.
            while true {
                if let item = completed {
                    guard let top = stack.indices.last else { return item }
                    if let pending = stack[top].pendingKey {
                        stack[top].entries.append(
                            PropertyListDictionary.Entry(key: pending.key, keyLocation: pending.location, item: item))
                        let position = stack[top].entries.count - 1
                        stack[top].keyIndex?[pending.key] = position
                        stack[top].pendingKey = nil
                    } else {
                        stack[top].items.append(item)
                    }
                    completed = nil
                }
                guard let top = stack.indices.last else { continue nextObject }
                let container = stack[top].container
                let position = stack[top].position
                if position == container.count {
                    let finished = stack.removeLast()
                    let value: PropertyListValue =
                        container.isDictionary
                        ? .dictionary(PropertyListDictionary(entries: finished.entries)) : .array(finished.items)
                    completed = PropertyListItem(value, at: location(container.offset))
                    continue
                }
                stack[top].position += 1
                let size = objectRefSize
                if container.isDictionary {
                    let keySlot = container.references + position * size
                    let (key, keyOffset) = try key(object: try reference(at: keySlot))
                    if let first = DuplicateKeys.entry(forKey: key, in: stack[top].entries, index: &stack[top].keyIndex)
                    {
                        throw PropertyListError(
                            .duplicateKey,
                            "duplicate key \"\(key)\" in the <dict> at byte \(container.offset) "
                                + "(first at byte \(first.keyLocation.byteOffset ?? 0))",
                            at: location(keySlot))
                    }
                    stack[top].pendingKey = (key, location(keyOffset))
                    index = try reference(at: container.references + (container.count + position) * size)
                } else {
                    index = try reference(at: container.references + position * size)
                }
                continue nextObject
            }
        }
    }
}
