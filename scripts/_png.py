"""A screenshot made small enough to commit: a browser's PNG read back and written again with
a palette of at most 256 colours (median cut), in plain Python (zlib only, no imaging
package). For the README's picture; a lossless PNG of felt and cards is several times
larger."""

from __future__ import annotations

import struct
import zlib
from collections import Counter

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunks(data: bytes) -> dict[bytes, bytes]:
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PNG")
    out: dict[bytes, bytes] = {}
    at = len(_SIGNATURE)
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind = data[at + 4:at + 8]
        out[kind] = out.get(kind, b"") + data[at + 8:at + 8 + length]
        at += 12 + length
    return out


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def decode(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Width, height and RGB pixels of an 8-bit RGB or RGBA PNG, not interlaced."""
    chunks = _chunks(data)
    width, height, depth, kind, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    if depth != 8 or kind not in (2, 6) or interlace:
        raise ValueError("only 8-bit RGB or RGBA PNGs without interlacing are read here")
    step = 3 if kind == 2 else 4
    raw = zlib.decompress(chunks[b"IDAT"])
    stride = width * step
    previous = bytearray(stride)
    pixels: list[tuple[int, int, int]] = []
    at = 0
    for _ in range(height):
        kind_of_filter, row = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = row[i - step] if i >= step else 0
            up = previous[i]
            if kind_of_filter == 1:
                row[i] = (row[i] + left) & 0xFF
            elif kind_of_filter == 2:
                row[i] = (row[i] + up) & 0xFF
            elif kind_of_filter == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xFF
            elif kind_of_filter == 4:
                row[i] = (row[i] + _paeth(left, up, previous[i - step] if i >= step else 0)) & 0xFF
        pixels.extend(zip(row[0::step], row[1::step], row[2::step], strict=True))
        previous = row
    return width, height, pixels


def _median_cut(counts: Counter[tuple[int, int, int]], colours: int) -> list[tuple[int, int, int]]:
    boxes = [list(counts)]
    while len(boxes) < colours:
        # The box to split: many pixels over a wide range of colour (a rare colour kept
        # apart, such as a gold button, matters as much as a smooth gradient).
        boxes.sort(key=lambda box: (len(box) > 1) * sum(counts[c] for c in box) ** 0.5 * max(
            max(c[ch] for c in box) - min(c[ch] for c in box) for ch in range(3)), reverse=True)
        box = boxes.pop(0)
        if len(box) < 2:
            boxes.append(box)
            break
        channel = max(range(3), key=lambda ch: max(c[ch] for c in box) - min(c[ch] for c in box))
        box.sort(key=lambda c: c[channel])
        total, half, cut = sum(counts[c] for c in box), 0, 1
        for index, colour in enumerate(box[:-1]):
            half += counts[colour]
            if half * 2 >= total:
                cut = index + 1
                break
        boxes += [box[:cut], box[cut:]]
    palette = []
    for box in boxes:
        weight = sum(counts[c] for c in box)
        palette.append(tuple(round(sum(c[ch] * counts[c] for c in box) / weight)
                             for ch in range(3)))
    return palette  # type: ignore[return-value]


def small_png(data: bytes, colours: int = 256) -> bytes:
    """``data`` (a PNG) again with a palette of ``colours`` colours chosen by median cut."""
    width, height, pixels = decode(data)
    counts = Counter(pixels)
    palette = _median_cut(counts, colours) if len(counts) > colours else list(counts)
    index = {}
    for colour in counts:
        index[colour] = min(range(len(palette)), key=lambda i: sum(
            (a - b) ** 2 for a, b in zip(colour, palette[i], strict=True)))
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        rows.extend(index[p] for p in pixels[y * width:(y + 1) * width])

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    return (_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
            + chunk(b"PLTE", bytes(v for colour in palette for v in colour))
            + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))
