/// Finds a key already stored in a `<dict>` being read, for both readers
/// (XML and binary), which refuse duplicate keys alike.
enum DuplicateKeys {
    /// The entry already stored under `key`, if any: a linear scan for
    /// small dictionaries, a hash index (built once, kept in `index`) from
    /// 16 entries on.
    static func entry(
        forKey key: String, in entries: [PropertyListDictionary.Entry], index: inout [String: Int]?
    ) -> PropertyListDictionary.Entry? {
        if index == nil {
            guard entries.count >= 16 else {
                // Comparing lengths first skips most string comparisons;
                // through a pointer, because `first(where:)` copies each
                // entry (its key and item) into the closure.
                let length = key.utf8.count
                return entries.withUnsafeBufferPointer { buffer in
                    guard let first = buffer.baseAddress else { return nil }
                    for position in buffer.indices {
                        let candidate = first + position
                        if candidate.pointee.key.utf8.count == length && candidate.pointee.key == key {
                            return candidate.pointee
                        }
                    }
                    return nil
                }
            }
            var built: [String: Int] = [:]
            for (position, entry) in entries.enumerated() {
                built[entry.key] = position
            }
            index = built
        }
        return index?[key].map { entries[$0] }
    }
}
