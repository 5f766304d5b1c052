"""XG records changed behind valid checksums: the mutations shared by the
reader's fuzz test (``tests/test_xg_fuzz.py``) and the whole-import fuzz run
(``benchmarks/fuzz_import.py``).

A file's members are unpacked (``sample_members``), the records of
``temp.xg`` changed (``mutate_records``: bytes flipped, fields overwritten,
a record replaced), and the container is built again around them by
``tests/fixtures/xg/xg_container.py: build_xg_bytes``, every CRC recomputed,
so that the change reaches the record parsers and the importer behind them.
"""

from __future__ import annotations

import random
import struct
import sys
import zlib
from pathlib import Path

FIXTURES_XG = Path(__file__).resolve().parents[1] / "fixtures" / "xg"
if str(FIXTURES_XG) not in sys.path:
    sys.path.insert(0, str(FIXTURES_XG))

import xg_build  # noqa: E402
from xg_container import build_xg_bytes  # noqa: E402,F401  (the rebuild, for the users of this module)

RECORD = 2560

_MEMBERS_CACHE: dict = {}


def sample_members(sample: bytes) -> dict:
    """The unpacked members of a well-formed container (read with zlib
    directly, not with the reader under test): name → bytes."""
    key = hash(sample)
    if key not in _MEMBERS_CACHE:
        prefix, area, registry, _ = xg_build.take_apart(sample)
        out = {}
        for k in range(len(registry) // xg_build.FILE_RECORD):
            rec = registry[k * xg_build.FILE_RECORD : (k + 1) * xg_build.FILE_RECORD]
            name = rec[1 : 1 + rec[0]].decode("latin-1")
            osize, csize, start = struct.unpack_from("<iii", rec, 512)
            out[name] = zlib.decompress(area[start : start + csize])
        _MEMBERS_CACHE[key] = out
    return _MEMBERS_CACHE[key]


# Offsets worth aiming at: EntryType, HeaderMatch version/magic/string lengths/
# date, HeaderGame score, Cube DiceRolled length, Move NMoves/Moves/PosPlayed,
# FooterMatch date, comment indexes.
TARGETS_BYTE = (8, 9, 50, 136, 283, 417, 208, 2304, 2308, 20, 21)
TARGETS_INT = (552, 556, 92, 12, 16, 48, 56, 60, 64, 120, 188, 68, 100, 2480, 2524, 292, 576, 580, 612)
TARGETS_DOUBLE = (128, 48, 104, 200, 2312)


def mutate_records(body: bytearray, rng: random.Random) -> str:
    """Change ``body`` (whole records of ``temp.xg``) in place, one way
    picked by ``rng``; returns what was done, for the case's name."""
    n_rec = len(body) // RECORD
    k = rng.randrange(n_rec)
    base = k * RECORD
    r = rng.random()
    if r < 0.35:
        flips = rng.randrange(1, 12)
        for _ in range(flips):
            i = rng.randrange(len(body))
            body[i] ^= rng.randrange(1, 256)
        return f"{flips} flips"
    if r < 0.55:
        off = rng.choice(TARGETS_BYTE)
        body[base + off] = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        return f"record {k} byte @{off}"
    if r < 0.8:
        off = rng.choice(TARGETS_INT)
        value = rng.choice([-1, 0, 1, 7, 8, 24, 25, 26, 27, 28, 30, 32, 33, 40, 41, 99999, 2**31 - 1, -(2**31),
                            rng.randrange(-(2**31), 2**31)])
        struct.pack_into("<i", body, base + off, value)
        return f"record {k} int @{off} = {value}"
    if r < 0.9:
        off = rng.choice(TARGETS_DOUBLE)
        value = rng.choice([0.0, -1.0, 1e308, -1e308, float("nan"), float("inf"), -float("inf"), 5e-324,
                            rng.uniform(-1e7, 1e7)])
        struct.pack_into("<d", body, base + off, value)
        return f"record {k} double @{off} = {value}"
    # a whole record of random bytes, its EntryType valid
    body[base : base + RECORD] = bytes(rng.randrange(256) for _ in range(RECORD))
    body[base + 8] = rng.randrange(6)
    return f"record {k} random"


def random_rtf(rng: random.Random) -> bytes:
    """A made-up comment of ``temp.xgc``: RTF control words, braces,
    escapes and stray bytes."""
    parts = [b"{", b"}", b"\\", b"\\par ", b"\\u", b"-", b"12345", b"?", b"\\'", b"e9", b"zz", b"\x01\x02", b"\r\n",
             b"\\*", b"\\fonttbl", b"text", b"\\uc", b"\\ansicpg", b"\xff", b"\x00", b" "]
    return b"".join(rng.choice(parts) for _ in range(rng.randrange(0, 60)))
