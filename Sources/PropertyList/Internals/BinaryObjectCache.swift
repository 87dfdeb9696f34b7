/// Strings and data already decoded from a binary property list, by
/// object index, so that an object referenced from many places (a key
/// every record has, a tag's name, a photo written once) is decoded once.
///
/// Direct-mapped: object `i` can only be in one slot, chosen by a
/// multiplicative hash of `i`, and a newer object that maps to the same
/// slot replaces it. A lookup is one comparison, with no hashing of the
/// `Hasher` kind: a record of a dozen keys reads a dozen keys and as many
/// values, and the dictionaries this replaced (two generations of
/// `[offset: value]`) hashed each string three times, about a sixth of a
/// binary import's reading thread.
///
/// Memory is bounded twice: by the slots, and by ``byteLimit`` for the
/// strings and data they hold (a slot whose value would pass it empties
/// every slot first). A value dropped early is decoded again when it is
/// next referenced, and counted again against the table's
/// ``BinaryObjectTable/maximumDecodedBytes``, as the generations were.
struct BinaryObjectCache {
    /// Slots: a power of two. Unrelated objects collide rarely (a record
    /// brings a few dozen), and the arrays take about 100 KiB.
    static let slotCount = 2048
    private static let shift = UInt64(64 - slotCount.trailingZeroBitCount)
    /// 16 MiB of strings and data at most, as the generations kept.
    static let byteLimit = 16 << 20

    /// The object index each slot holds, or -1.
    private var objects = [Int](repeating: -1, count: slotCount)
    /// The object's offset (its location) and value, for slots in use.
    private var offsets = [Int](repeating: 0, count: slotCount)
    private var values = [PropertyListValue](repeating: .bool(false), count: slotCount)
    /// The bytes each slot's value holds, and their sum.
    private var lengths = [Int](repeating: 0, count: slotCount)
    private var heldBytes = 0

    @inline(__always)
    private static func slot(_ object: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: object) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The offset and value of `object`, if it is cached.
    @inline(__always)
    func lookup(_ object: Int) -> (offset: Int, value: PropertyListValue)? {
        let slot = Self.slot(object)
        guard objects[slot] == object else { return nil }
        return (offsets[slot], values[slot])
    }

    /// Keeps `value`, `length` bytes, decoded from `object` at `offset`.
    mutating func insert(_ value: PropertyListValue, object: Int, offset: Int, length: Int) {
        guard length <= Self.byteLimit else { return }
        let slot = Self.slot(object)
        heldBytes -= lengths[slot]
        if heldBytes + length > Self.byteLimit {
            for slot in objects.indices where objects[slot] >= 0 {
                objects[slot] = -1
                values[slot] = .bool(false)
                lengths[slot] = 0
            }
            heldBytes = 0
        }
        objects[slot] = object
        offsets[slot] = offset
        values[slot] = value
        lengths[slot] = length
        heldBytes += length
    }
}
