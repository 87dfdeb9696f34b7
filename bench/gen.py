#!/usr/bin/env python3
"""Generate deterministic BowTies-shaped XML property lists for the bench.

Every record has every field of SampleData/SampleData.plist, keys in the
sample's (alphabetical) order, tab-indented, under the sample's XML header
and DOCTYPE. Photos rotate through the seven sample images, written as
`red.png` or `red` as the sample does. The same seed gives the same bytes
on every machine, so figures from different runs compare the same input.

    python3 bench/gen.py 100000 out.plist            # with imageName keys
    python3 bench/gen.py 100000 out.plist --no-images
    python3 bench/gen.py 100000 out.plist --tags     # 1 record in 3 tagged
    python3 bench/gen.py 10000000 out.jsonl --jsonl --no-images   # JSON Lines

With --tags, 1 record in 3 also has a `tags` array of 1 to 3 names from a
fixed vocabulary of 11. The tags depend on the index only, so the files
with and without them hold the same ties otherwise, and a file without
tags is byte for byte what it was before tags existed.

With --jsonl, the same ties (the same draws, the same keys in the same
order) are written as JSON Lines, one object per line, the colour as
`#RRGGBB` as the export writes it: the input of the 10-million-record
scale section, read by the JSON reader rather than the XML one.

The file is written in chunks (a few MB of memory whatever the size) to a
temporary name and renamed at the end, so an interrupted run never leaves a
file that looks complete.
"""

import argparse
import os
import random
import sys

# Bump when the output changes: cached files are keyed by it.
VERSION = 1
SEED = 20140619

PHOTOS = ["red", "orange", "yellow", "green", "blue", "indigo", "violet"]
LETTERS = ["R", "O", "Y", "G", "B", "I", "V"]
ADJECTIVES = ["Classic", "Midnight", "Velvet", "Silk", "Paisley", "Striped",
              "Dotted", "Tartan", "Knitted", "Linen", "Satin", "Crêpe"]
NOUNS = ["Bow Tie", "Self-Tie", "Butterfly", "Batwing", "Diamond Point",
         "Club Round", "Pre-Tied Bow", "Thistle"]
# Tag names as they appear in the XML. A prime count, so that the steps of
# record_tags() always give distinct names. One needs an entity, one is
# not ASCII; no two share a first letter unless their second letters
# differ, so that every sort that ignores case orders them the same way.
TAGS = ["wedding", "office", "evening", "summer", "winter", "silk", "vintage",
        "gift", "black &amp; white", "soirée", "formal"]

HEADER = ('<?xml version="1.0" encoding="UTF-8"?>\n'
          '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
          '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
          '<plist version="1.0">\n<array>\n')
FOOTER = "</array>\n</plist>\n"

# 2010-01-01 .. 2025-01-01, seconds since 1970.
DATE_FROM, DATE_TO = 1262304000, 1735689600


def search_key(index):
    """The unique search key of record `index` (0-based): `R0`, `O1`, ..."""
    return f"{LETTERS[index % 7]}{index}"


def photo_name(index):
    """The imageName of record `index`; every other one without `.png`."""
    name = PHOTOS[index % 7]
    return name + ".png" if (index // 7) % 2 == 0 else name


def record_tags(index):
    """The tag names (XML text) of record `index`: 1 to 3 for 1 record in 3.

    A function of the index alone: no draw from the records' generator,
    so adding tags changes nothing else in the file, and the bench can
    count what a file holds without reading it. Records 2, 5, 8, ... are
    tagged; so is the middle record of every 10^k-record file, which the
    bench shows.
    """
    if index % 3 != 2:
        return []
    n = index // 3
    count = 1 + n % 3
    start = (n * 7) % len(TAGS)
    step = 1 + (n // 3) % (len(TAGS) - 1)
    return [TAGS[(start + j * step) % len(TAGS)] for j in range(count)]


def tag_summary(count):
    """(tagged records, tag links, distinct names) in a `count`-record file."""
    tagged = links = 0
    names = set()
    for index in range(2, count, 3):
        tags = record_tags(index)
        tagged += 1
        links += len(tags)
        names.update(tags)
    return tagged, links, len(names)


_DAYS = {}


def _date_text(seconds):
    # time.gmtime is slow enough to matter at 1M records; do it by hand
    # (Howard Hinnant's civil_from_days), each day's text once.
    days, rest = divmod(seconds, 86400)
    day_text = _DAYS.get(days)
    if day_text is None:
        z = days + 719468
        era = z // 146097
        doe = z - era * 146097
        yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
        doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
        mp = (5 * doy + 2) // 153
        day = doy - (153 * mp + 2) // 5 + 1
        month = mp + 3 if mp < 10 else mp - 9
        year = yoe + era * 400 + (1 if month <= 2 else 0)
        day_text = _DAYS[days] = f"{year:04d}-{month:02d}-{day:02d}T"
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    return f"{day_text}{h:02d}:{m:02d}:{s:02d}Z"


def _ties(count):
    """Yields each record's values, drawn from the seeded generator in
    the order the XML file has always drawn them: (index, id, adjective,
    colour, joined, noun, rating text, times worn, last worn, favourite,
    red, green, blue). `joined` says whether the name has " & Gold ".

    The draws are those of `rng.choice`, `rng.randrange` and
    `rng.uniform`, written out (CPython's `_randbelow`: `getrandbits` of
    the bound's bit length until below it) so that a 10M file takes a
    third of the time; the files are byte-identical to those calls'."""
    rng = random.Random(SEED)
    bits, unit = rng.getrandbits, rng.random

    def below(n, k):  # rng._randbelow(n), k = n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        return r

    adjectives, nouns, colours = ADJECTIVES, NOUNS, [name.capitalize() for name in PHOTOS]
    n_adj, k_adj = len(adjectives), len(adjectives).bit_length()
    n_noun, k_noun = len(nouns), len(nouns).bit_length()
    span = DATE_TO - DATE_FROM
    k_span = span.bit_length()
    # uuid.UUID(int=…, version=4): variant bits 10, version nibble 4.
    clear = ~((0xC000 << 48) | (0xF000 << 64))
    set_bits = (0x8000 << 48) | (4 << 76)
    for i in range(count):
        h = f"{(bits(128) & clear) | set_bits:032X}"
        tie_id = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        adjective = adjectives[below(n_adj, k_adj)]
        noun = nouns[below(n_noun, k_noun)]
        colour = colours[i % 7]
        # One name in 16 needs an entity, as the sample's "Green &amp; Gold".
        joined = unit() < 0.0625
        # Ratings as the sample writes them: 3.5, 4, 2.25; some arbitrary.
        if unit() < 0.5:
            rating = below(21, 5) / 4
        else:
            rating = round(0 + 5 * unit(), 2)
        rating_text = str(int(rating)) if rating == int(rating) else repr(rating)
        times = below(500, 9)
        last = DATE_FROM + below(span, k_span)
        favourite = unit() < 0.1
        red, green, blue = below(256, 9), below(256, 9), below(256, 9)
        yield (i, tie_id, adjective, colour, joined, noun, rating_text, times, last, favourite, red, green, blue)


def _url(adjective, colour, i):
    slug = adjective.lower().replace("ê", "e")
    return f"https://example.com/ties/{slug}-{colour.lower()}-{i}"


def records(count, images=True, tags=False):
    """Yields the XML text of each record's <dict>.

    imageName and tags depend on the index only (no random draw), so the
    files with and without them hold the same ties otherwise.
    """
    for (i, tie_id, adjective, colour, joined, noun, rating_text, times, last, favourite,
         red, green, blue) in _ties(count):
        joiner = " &amp; Gold " if joined else " "
        name = f"{adjective} {colour}{joiner}{noun} {i}"
        url = _url(adjective, colour, i)
        image = (f"\t\t<key>imageName</key>\n\t\t<string>{photo_name(i)}</string>\n"
                 if images else "")
        names = record_tags(i) if tags else []
        tag_array = ("\t\t<key>tags</key>\n\t\t<array>\n"
                     + "".join(f"\t\t\t<string>{tag}</string>\n" for tag in names)
                     + "\t\t</array>\n") if names else ""
        yield (
            "\t<dict>\n"
            f"\t\t<key>id</key>\n\t\t<string>{tie_id}</string>\n"
            f"{image}"
            f"\t\t<key>isFavorite</key>\n\t\t{'<true/>' if favourite else '<false/>'}\n"
            f"\t\t<key>lastWorn</key>\n\t\t<date>{_date_text(last)}</date>\n"
            f"\t\t<key>name</key>\n\t\t<string>{name}</string>\n"
            f"\t\t<key>rating</key>\n\t\t<real>{rating_text}</real>\n"
            f"\t\t<key>searchKey</key>\n\t\t<string>{search_key(i)}</string>\n"
            f"{tag_array}"
            f"\t\t<key>timesWorn</key>\n\t\t<integer>{times}</integer>\n"
            "\t\t<key>tintColor</key>\n\t\t<dict>\n"
            f"\t\t\t<key>blue</key>\n\t\t\t<integer>{blue}</integer>\n"
            f"\t\t\t<key>green</key>\n\t\t\t<integer>{green}</integer>\n"
            f"\t\t\t<key>red</key>\n\t\t\t<integer>{red}</integer>\n"
            "\t\t</dict>\n"
            f"\t\t<key>url</key>\n\t\t<string>{url}</string>\n"
            "\t</dict>\n"
        )


def json_lines(count, images=True, tags=False):
    """Yields each record as one line of JSON Lines: the same ties as
    records() (the same draws), keys in the same order, the colour as the
    export writes it (`#RRGGBB`), `&` as itself. No value needs escaping
    (no quote, backslash or control character), so none is escaped."""
    for (i, tie_id, adjective, colour, joined, noun, rating_text, times, last, favourite,
         red, green, blue) in _ties(count):
        joiner = " & Gold " if joined else " "
        image = f'"imageName": "{photo_name(i)}", ' if images else ""
        names = [tag.replace("&amp;", "&") for tag in record_tags(i)] if tags else []
        tag_array = ('"tags": [' + ", ".join(f'"{tag}"' for tag in names) + "], ") if names else ""
        yield (
            f'{{"id": "{tie_id}", {image}"isFavorite": {"true" if favourite else "false"}, '
            f'"lastWorn": "{_date_text(last)}", "name": "{adjective} {colour}{joiner}{noun} {i}", '
            f'"rating": {rating_text}, "searchKey": "{search_key(i)}", {tag_array}"timesWorn": {times}, '
            f'"tintColor": "#{red:02X}{green:02X}{blue:02X}", "url": "{_url(adjective, colour, i)}"}}\n'
        )


def generate(count, path, images=True, tags=False, chunk=5000, jsonl=False):
    """Writes `count` records to `path` (via `path.tmp`, then renamed): an
    XML property list, or JSON Lines with `jsonl`."""
    temporary = f"{path}.tmp{os.getpid()}"
    with open(temporary, "w", encoding="utf-8", newline="\n") as out:
        if not jsonl:
            out.write(HEADER)
        batch = []
        for text in (json_lines if jsonl else records)(count, images, tags):
            batch.append(text)
            if len(batch) == chunk:
                out.write("".join(batch))
                batch.clear()
        out.write("".join(batch))
        if not jsonl:
            out.write(FOOTER)
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, nargs="?")
    parser.add_argument("output", nargs="?")
    parser.add_argument("--no-images", action="store_true", help="leave out imageName keys")
    parser.add_argument("--tags", action="store_true", help="give 1 record in 3 a tags array")
    parser.add_argument("--jsonl", action="store_true", help="write JSON Lines instead of an XML property list")
    parser.add_argument("--version", action="store_true", help="print the generator version")
    args = parser.parse_args()
    if args.version:
        print(VERSION)
        return 0
    if args.count is None or args.output is None:
        parser.error("COUNT and OUTPUT are required")
    generate(args.count, args.output, images=not args.no_images, tags=args.tags, jsonl=args.jsonl)
    return 0


if __name__ == "__main__":
    sys.exit(main())
