#!/usr/bin/env python3
"""Writes the binary property-list fixtures of BinaryPropertyListReaderTests.

    python3 Tests/PropertyListTests/Fixtures/Binary/make-fixtures.py

Valid files come from CPython's plistlib (an independent writer), plus a few
hand-assembled ones for what plistlib never writes (4-byte reals, sets,
in-range 128-bit integers, 8-byte offsets and references). Hostile files
are assembled byte by byte; `hostile.json` says, for each, the error kind
the reader must throw, the byte offset it must name and a fragment of its
message. The same files seed the fuzzer (fuzz/corpus/bplist).
"""
import datetime
import json
import os
import plistlib
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def dumps(value):
    return plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False)


def assemble(objects, top=0, ref_size=1, offset_size=None, offsets=None,
             num_objects=None, top_object=None, table_offset=None, header=b"bplist00",
             offset_size_field=None, ref_size_field=None):
    """A binary plist from encoded objects (bytes, references already in
    `ref_size` bytes); any trailer field can be made to lie."""
    body = bytearray(header)
    real_offsets = []
    for obj in objects:
        real_offsets.append(len(body))
        body += obj
    offsets = offsets if offsets is not None else real_offsets
    if offset_size is None:
        offset_size = max(1, (max(offsets).bit_length() + 7) // 8)
    table = len(body)
    for offset in offsets:
        body += offset.to_bytes(offset_size, "big")
    body += bytes(6)
    body += bytes([offset_size if offset_size_field is None else offset_size_field,
                   ref_size if ref_size_field is None else ref_size_field])
    body += struct.pack(">QQQ",
                        len(objects) if num_objects is None else num_objects,
                        top if top_object is None else top_object,
                        table if table_offset is None else table_offset)
    return bytes(body)


def ref(index, size=1):
    return index.to_bytes(size, "big")


def ascii(text):
    data = text.encode("ascii")
    return count(0x50, len(data)) + data


def count(marker, n):
    if n < 15:
        return bytes([marker | n])
    return bytes([marker | 0x0F, 0x11]) + n.to_bytes(2, "big")


def array(refs, size=1, marker=0xA0):
    return count(marker, len(refs)) + b"".join(ref(r, size) for r in refs)


def dictionary(keys, values, size=1):
    return count(0xD0, len(keys)) + b"".join(ref(r, size) for r in keys + values)


# MARK: - Valid files, written by plistlib

all_types = {
    "string": "Bow tie",
    "unicode": "caf\u00e9 \U0001F380",  # UTF-16, with a surrogate pair
    "empty string": "",
    "long string": "A bow tie is a type of necktie. " * 4,
    "zero": 0,
    "one byte": 255,
    "two bytes": 256,
    "four bytes": 65536,
    "eight bytes": 1 << 32,
    "negative": -17,
    "largest": 2**63 - 1,
    "smallest": -(2**63),
    "real": 3.25,
    "exponent": -1.5e-3,
    "nan": float("nan"),
    "infinity": float("-inf"),
    "yes": True,
    "no": False,
    "date": datetime.datetime(2014, 6, 1, 12, 34, 56),
    "data": b"Hello, bow ties!",
    "long data": bytes(range(256)),
    "empty array": [],
    "empty dict": {},
    "nested": [{"name": "inner"}, 1],
}
write("AllTypes.bplist", dumps(all_types))

# More than 256 objects: plistlib uses 2-byte references and offsets.
write("Large.bplist", dumps([{"id": i, "name": f"tie {i}"} for i in range(300)]))

# A 15-or-more count needs an integer object after the marker.
write("LongCounts.bplist", dumps({"items": list(range(20)), "text": "x" * 40, "bytes": b"\x01" * 20}))

# The XML fixtures, converted: the two readers must agree on them.
for source, target in [
    (os.path.join(ROOT, "SampleData", "SampleData.plist"), "SampleData.bplist"),
    (os.path.join(HERE, "..", "AllTypes.plist"), "AllTypesFromXML.bplist"),
]:
    with open(source, "rb") as f:
        write(target, dumps(plistlib.load(f, dict_type=dict)))

# A shared container (the same Python list twice): plistlib writes it once.
tags = ["silk", "red"]
write("SharedContainer.bplist", dumps([{"tags": tags}, {"tags": tags}]))

write("ScalarRoot.bplist", dumps("just a string"))

# MARK: - Valid files, assembled

# 4-byte real, a set, an in-range 128-bit integer, a UTF-16 string.
write("HandMade.bplist", assemble([
    array([1, 2, 3, 4], marker=0xA0),               # 0: root array
    bytes([0x22]) + struct.pack(">f", 1.5),          # 1: 4-byte real
    array([5, 6], marker=0xC0),                      # 2: set of two
    bytes([0x14]) + (-5).to_bytes(16, "big", signed=True),  # 3: 128-bit -5
    bytes([0x62]) + "h\u00e9".encode("utf-16-be"),   # 4: UTF-16 "hé"
    ascii("a"),                                      # 5
    ascii("b"),                                      # 6
]))

# 8-byte offsets and references.
write("WideSizes.bplist", assemble([
    array([1, 2], size=8),
    ascii("wide"),
    bytes([0x10, 7]),
], ref_size=8, offset_size=8))

# The deepest nesting allowed: 512 arrays.
depth = 512
write("Deepest.bplist", assemble(
    [array([i + 1], size=2) for i in range(depth - 1)] + [bytes([0xA0])], ref_size=2))

# MARK: - Hostile files

hostile = {}


def refuse(name, data, kind, offset, message):
    write(name, data)
    hostile[name] = {"kind": kind, "offset": offset, "message": message}


simple = assemble([array([1]), ascii("x")])  # 8 + 2 + 2 objects, table at 12
trailer = len(simple) - 32

refuse("Short.bplist", b"bplist00\xd0", "malformedBinary", 9, "at least 40 bytes")
refuse("BadMagic.bplist", b"bplist15" + simple[8:], "malformedBinary", 0, 'expected the header "bplist00"')
refuse("OffsetSizeZero.bplist", assemble([array([1]), ascii("x")], offset_size_field=0),
       "malformedBinary", trailer + 6, "offset size is 0")
refuse("RefSizeNine.bplist", assemble([array([1]), ascii("x")], ref_size_field=9),
       "malformedBinary", trailer + 7, "object reference size is 9")
refuse("TableOutside.bplist", assemble([array([1]), ascii("x")], table_offset=10_000),
       "malformedBinary", trailer + 24, "offset table at byte 10000")
refuse("TooManyObjects.bplist", assemble([array([1]), ascii("x")], num_objects=1 << 62),
       "malformedBinary", trailer + 8, "has room for")
refuse("NoObjects.bplist", assemble([array([1]), ascii("x")], num_objects=0),
       "malformedBinary", trailer + 8, "declares no objects")
refuse("TopObject.bplist", assemble([array([1]), ascii("x")], top_object=2),
       "malformedBinary", trailer + 16, "root object 2 is out of range")
refuse("OffsetOutOfRange.bplist", assemble([array([1]), ascii("x")], offsets=[8, 200]),
       "malformedBinary", 13, "gives object 1 the offset 200")
refuse("OffsetIntoHeader.bplist", assemble([array([1]), ascii("x")], offsets=[3, 10]),
       "malformedBinary", 12, "gives object 0 the offset 3")
refuse("ReferenceOutOfRange.bplist", assemble([array([1, 7]), ascii("x")]),
       "malformedBinary", 10, "object reference 7 is out of range (2 objects)")
refuse("DataCountTooLarge.bplist",
       assemble([bytes([0x4F, 0x13]) + (1 << 62).to_bytes(8, "big") + b"abc"]),
       "malformedBinary", 8, "claims 4611686018427387904 bytes")
refuse("ArrayCountTooLarge.bplist", assemble([bytes([0xAF, 0x12]) + (1 << 30).to_bytes(4, "big") + b"\x00"]),
       "malformedBinary", 8, "claims 1073741824 elements")
refuse("StringRunsIntoTable.bplist", assemble([bytes([0x5F, 0x10])]),
       "malformedBinary", 10, "runs into the offset table")
refuse("BadCountMarker.bplist", assemble([bytes([0x5F, 0x22, 0, 0, 0, 1]) + b"x"]),
       "malformedBinary", 9, "expected an integer count")
refuse("Cycle.bplist", assemble([array([0])]), "malformedBinary", 8, "contains itself")
refuse("IndirectCycle.bplist", assemble([array([1]), dictionary([2], [0]), ascii("k")]),
       "malformedBinary", 8, "contains itself")
refuse("TooDeep.bplist", assemble(
    [array([i + 1], size=2) for i in range(depth)] + [bytes([0xA0])], ref_size=2),
    "tooDeeplyNested", 8 + 512 * 3, "nesting deeper than 512 levels")

# A binary "billion laughs": 30 levels of 10 references to the level below.
laughs = [array([i + 1] * 10) for i in range(30)] + [ascii("lol")]
refuse("BillionLaughs.bplist", assemble(laughs), "malformedBinary", None, "refused to bound memory")

# One 100-element array referenced 10,000 times from the root.
shared = [array([1] * 10_000, size=2), array([2] * 100, size=2), ascii("x")]
refuse("SharedMillion.bplist", assemble(shared, ref_size=2), "malformedBinary", None,
       "refused to bound memory")

# 4,000 strings that overlap, each 16 KB long: 65 MB from a 40 KB file.
overlap_count = 4000
region = bytes([0x5F, 0x11, 0x40, 0x00]) * overlap_count + b"_" * 0x4000
root_refs = array(list(range(1, overlap_count + 1)), size=2)
objects = [root_refs, region]
data = bytearray(b"bplist00") + root_refs + region
offsets = [8] + [8 + len(root_refs) + 4 * k for k in range(overlap_count)]
table = len(data)
for offset in offsets:
    data += offset.to_bytes(2, "big")
data += bytes(6) + bytes([2, 2]) + struct.pack(">QQQ", len(offsets), 0, table)
refuse("OverlappingStrings.bplist", bytes(data), "malformedBinary", None, "decode to more than")

refuse("UID.bplist", dumps({"$top": plistlib.UID(5)}), "invalidValue", None, "UIDs (NSKeyedArchiver)")
refuse("Null.bplist", assemble([bytes([0x00])]), "invalidValue", 8, "null (marker 0x00)")
refuse("IntegerTooLarge.bplist", dumps(2**63), "invalidValue", 8, "outside the 64-bit signed range")
refuse("LoneSurrogate.bplist", assemble([bytes([0x62, 0x00, 0x61, 0xD8, 0x00])]),
       "invalidValue", 11, "unpaired UTF-16 surrogate 0xD800")
refuse("NonASCII.bplist", assemble([bytes([0x52, 0x61, 0xE9])]), "invalidValue", 10, "byte 0xE9 in an ASCII string")
refuse("NonStringKey.bplist", assemble([dictionary([1], [1]), bytes([0x10, 5])]),
       "unexpectedElement", 11, "expected a string as dictionary key, found <integer>")
refuse("DuplicateKey.bplist", assemble([dictionary([1, 2], [3, 3]), ascii("a"), ascii("a"), bytes([0x09])]),
       "duplicateKey", 10, 'duplicate key "a"')
refuse("UnknownMarker.bplist", assemble([bytes([0x70])]), "malformedBinary", 8, "unknown object marker 0x70")
refuse("DateOutOfRange.bplist", assemble([bytes([0x33]) + struct.pack(">d", 1e300)]),
       "invalidValue", 8, "outside the years 0000 to 9999")

with open(os.path.join(HERE, "hostile.json"), "w") as f:
    json.dump(hostile, f, indent=2, sort_keys=True)
    f.write("\n")

# The readers must agree with CPython where CPython reads the file too.
for name in sorted(os.listdir(HERE)):
    # plistlib reads recursively (512 levels exceed Python's stack) and
    # knows no sets.
    if name.endswith(".bplist") and name not in hostile and name not in ("Deepest.bplist", "HandMade.bplist"):
        with open(os.path.join(HERE, name), "rb") as f:
            plistlib.load(f)
print(f"{len(hostile)} hostile files, fixtures in {HERE}")
