#!/usr/bin/env python3
"""Generate the bow-tie photos used by SampleData.plist.

Each of the seven sample ties (one per rainbow colour, search keys R O Y G B
I V) gets a "photo": a stylised bow tie -- two pleated wings and a knot -- in
the tie's colour, with a soft shadow, on a light background. The colours are
the same RGB values as the ``tintColor`` dictionaries in SampleData.plist.

Why two photos are large
------------------------
The BowTie model stores ``photoData`` as Binary Data with "Allows External
Storage". Our store keeps a blob inline (inside the database) when it is at
most 100 KiB (102,400 bytes) and writes it to a separate file when it is
larger. To exercise BOTH paths with the sample data, exactly two photos,
``blue.png`` and ``violet.png``, are made clearly larger than the threshold
(a bigger canvas plus a fine "fabric weave" texture of seeded pseudo-random
noise that zlib cannot compress away, giving roughly 200-300 KB each). The
other five are smaller (320x200, smooth shading, about 15-20 KB each) and
stay inline.

Determinism
-----------
The output is byte-identical on every run: the noise comes from SHA-256 in
counter mode seeded with the colour name, the PNGs contain only IHDR, IDAT
and IEND chunks (no tIME, no text, no timestamps) and every row uses filter
type 0, compressed with zlib at level 9. Only the standard library is used.
(A different zlib build, e.g. zlib-ng, could choose different but equally
valid compressed bytes; the decoded pixels never change.)

Usage
-----
    python3 SampleData/make-images.py [OUTPUT_DIR]

OUTPUT_DIR defaults to the ``Images`` folder next to this script. Each file
written is printed with its size in bytes.
"""

import hashlib
import math
import os
import struct
import sys
import zlib

THRESHOLD = 100 * 1024  # external-storage threshold, bytes

# (file stem, RGB, large?) -- RGB must match tintColor in SampleData.plist.
TIES = [
    ("red", (200, 30, 45), False),
    ("orange", (240, 130, 20), False),
    ("yellow", (245, 205, 40), False),
    ("green", (40, 150, 70), False),
    ("blue", (30, 90, 200), True),
    ("indigo", (75, 0, 130), False),
    ("violet", (140, 60, 210), True),
]

SMALL_SIZE = (320, 200)
LARGE_SIZE = (400, 250)
BACKGROUND = (244, 241, 234)  # warm off-white
SHADOW = (0.06, 0.09)  # shadow offset, in tie units (u, v)


# --------------------------------------------------------------------------
# PNG writing


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def encode_png(width, height, rows):
    """rows: list of bytes objects, each width*3 bytes of RGB."""
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 (None)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


# --------------------------------------------------------------------------
# Deterministic noise: SHA-256 in counter mode.


class NoiseStream:
    def __init__(self, seed):
        self.seed = hashlib.sha256(seed.encode("utf-8")).digest()
        self.counter = 0

    def take(self, n):
        out = bytearray()
        while len(out) < n:
            out += hashlib.sha256(self.seed + struct.pack(">Q", self.counter)).digest()
            self.counter += 1
        return bytes(out[:n])


# --------------------------------------------------------------------------
# The bow-tie shape, in tie coordinates: u in [-1, 1] across, v in [-1, 1]
# down. Returns (part, shade) where part is None, "wing" or "knot".

KNOT_U, KNOT_V = 0.17, 0.26


def tie_at(u, v):
    au, av = abs(u), abs(v)
    # Knot: a rounded rectangle in the middle.
    if au <= KNOT_U and av <= KNOT_V:
        r = 0.07
        cu, cv = au - (KNOT_U - r), av - (KNOT_V - r)
        if cu <= 0 or cv <= 0 or cu * cu + cv * cv <= r * r:
            # Slight barrel shading: lighter in the middle.
            return "knot", 1.0 - 0.9 * (au * au) - 0.6 * (av * av)
    # Wings: flare out from the knot, with a concave notch at the ends.
    if 0.08 <= au:
        t = (au - 0.08) / 0.92  # 0 at the knot, 1 at the tip
        if t > 1.0:
            return None, 0.0
        half = 0.20 + 0.72 * (t ** 0.75)
        if av > half:
            return None, 0.0
        s = av / half
        if au > 1.0 - 0.12 * math.cos(s * math.pi / 2):
            return None, 0.0
        # Pleats fanning out from the knot, plus a darker tip.
        angle = math.atan2(v, au)
        pleat = 0.10 * math.sin(angle * 9.0)
        return "wing", 1.0 + pleat - 0.18 * t * t - 0.10 * s * s
    return None, 0.0


def coverage(u, v, du, dv):
    """2x2 supersampled coverage; returns (fraction, part, shade)."""
    hits, shade_sum, part = 0, 0.0, None
    for ou in (-0.25, 0.25):
        for ov in (-0.25, 0.25):
            p, s = tie_at(u + ou * du, v + ov * dv)
            if p is not None:
                hits += 1
                shade_sum += s
                part = part or p
    if hits == 0:
        return 0.0, None, 0.0
    return hits / 4.0, part, shade_sum / hits


def clamp(x):
    return 0 if x < 0 else 255 if x > 255 else int(x + 0.5)


def render(rgb, size, noise):
    width, height = size
    # The tie occupies the middle of the frame with a margin.
    cx, cy = width / 2.0, height / 2.0
    sx, sy = width * 0.40, height * 0.36  # pixels per tie unit
    du, dv = 1.0 / sx, 1.0 / sy
    rows = []
    for y in range(height):
        v = (y + 0.5 - cy) / sy
        row = bytearray(width * 3)
        n = noise.take(width * 2) if noise else None
        for x in range(width):
            u = (x + 0.5 - cx) / sx
            # Background: a gentle vertical gradient plus vignette.
            vig = 1.0 - 0.05 * ((x - cx) / cx) ** 2 - 0.07 * (y / height)
            bg = [c * vig for c in BACKGROUND]
            # Soft shadow: the tie shape, offset down-right, darkens the bg.
            sh, _, _ = coverage(u - SHADOW[0], v - SHADOW[1], du, dv)
            if sh:
                bg = [c * (1.0 - 0.16 * sh) for c in bg]
            frac, part, shade = coverage(u, v, du, dv)
            if frac:
                if part == "knot":
                    shade *= 0.85
                fg = [c * shade for c in rgb]
                # Lift very dark colours slightly so the pleats stay visible.
                fg = [f + (255 - f) * 0.06 * (1.0 - shade) for f in fg]
                px = [f * frac + b * (1.0 - frac) for f, b in zip(fg, bg)]
            else:
                px = bg
            if n is not None:
                # Fabric texture: a diagonal twill plus per-pixel grain.
                twill = 6.0 if (x + y) % 4 < 2 else -6.0
                grain = (n[2 * x] - 128) / 128.0 * 14.0
                tint = (n[2 * x + 1] - 128) / 128.0 * 8.0
                px = [px[0] + twill + grain + tint, px[1] + twill + grain, px[2] + twill + grain - tint]
            i = 3 * x
            row[i] = clamp(px[0])
            row[i + 1] = clamp(px[1])
            row[i + 2] = clamp(px[2])
        rows.append(bytes(row))
    return encode_png(width, height, rows)


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = argv[1] if len(argv) > 1 else os.path.join(here, "Images")
    os.makedirs(out_dir, exist_ok=True)
    total = 0
    for stem, rgb, large in TIES:
        size = LARGE_SIZE if large else SMALL_SIZE
        noise = NoiseStream("bowties/" + stem) if large else None
        data = render(rgb, size, noise)
        path = os.path.join(out_dir, stem + ".png")
        with open(path, "wb") as f:
            f.write(data)
        total += len(data)
        where = "external" if len(data) > THRESHOLD else "inline"
        print("%-12s %8d bytes  %dx%d  (%s)" % (stem + ".png", len(data), size[0], size[1], where))
    print("%-12s %8d bytes" % ("total", total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
