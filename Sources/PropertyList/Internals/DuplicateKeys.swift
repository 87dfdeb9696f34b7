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
                // Comparing lengths first skips most string comparisons.
                let length = key.utf8.count
                return entries.first { $0.key.utf8.count == length && $0.key == key }
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
