"""Fuzzing the XG reader: whatever the bytes, ``parse_xg_bytes`` returns an
``XgFile`` or raises ``XgFormatError`` (one line, naming the source), within
a time bound per case, and writes nothing.

Seeded (``XG_FUZZ_SEED`` overrides the seed, ``XG_FUZZ_SCALE`` multiplies the
case counts). The cases start from the real samples:

- truncations of the whole file;
- byte flips in the header and thumbnail, in the compressed archive (with the
  archive CRC left wrong, and recomputed so the flip reaches zlib and the
  member CRCs), and in the trailer;
- registry file records changed, the container rebuilt with correct CRCs;
- records changed: a real HeaderMatch and a window of real records, bytes
  flipped or fields overwritten (EntryType, Version, string lengths, NMoves,
  dates...), temp.xg cut, comments and rollouts made up, then the container
  rebuilt with correct CRCs so that the change reaches the record parsers.

About 3,900 cases; 7-9 s on the 2-core machine this was written on (the
slowest case about 75 ms; the alarm is at 2 s).
"""

from __future__ import annotations

import os
import random
import signal
import struct
import sys
import tempfile
import time
from collections import Counter

import pytest

from conftest import FIXTURES
from gnubg_blunder.importers.xg_format import XgFormatError, parse_xg_bytes

sys.path.insert(0, str(FIXTURES / "xg"))
import xg_build  # noqa: E402
from xg_container import build_xg_bytes  # noqa: E402

sys.path.insert(0, str(FIXTURES.parent / "tools"))
from xg_mutations import mutate_records as _mutate_records  # noqa: E402
from xg_mutations import random_rtf as _random_rtf  # noqa: E402
from xg_mutations import sample_members as _sample_members  # noqa: E402

SEED = int(os.environ.get("XG_FUZZ_SEED", "20241018"))
SCALE = float(os.environ.get("XG_FUZZ_SCALE", "1"))
# A case still running after this long is a hang (an endless loop), however
# busy the machine: cases take milliseconds; none is timed against a limit.
CASE_SECONDS = 60.0
SAMPLE_NAMES = (
    "match_with_comment.xg",
    "charlot1-charlot2_7p_2025-11-08-2305.xg",
    "Squire-Jorgensen-Harmand-Unger_7pt_2024-08-18.xg",
)


class _Hang(BaseException):
    """Raised by the alarm; a BaseException so no ``except Exception`` in
    the reader can swallow it."""


def _on_alarm(signum, frame):
    raise _Hang()


@pytest.fixture(scope="module")
def samples(shared_data):
    return {n: (shared_data / "xg" / n).read_bytes() for n in SAMPLE_NAMES}


@pytest.fixture
def fuzz(tmp_path, monkeypatch):
    """Run cases in an empty working directory (and temp dir), with an alarm
    per case; at the end nothing may have appeared in either."""
    work = tmp_path / "cwd"
    tmpd = tmp_path / "tmp"
    work.mkdir()
    tmpd.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(tmpd))
    use_alarm = hasattr(signal, "setitimer")
    old = signal.signal(signal.SIGALRM, _on_alarm) if use_alarm else None
    runner = _Runner(use_alarm)
    yield runner
    if use_alarm:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert list(work.iterdir()) == [], "the reader wrote into the working directory"
    assert list(tmpd.iterdir()) == [], "the reader wrote into the temp directory"
    print(f"\n{runner.label}: {sum(runner.outcomes.values())} cases {dict(runner.outcomes)}, "
          f"slowest {runner.slowest * 1000:.1f} ms")


class _Runner:
    def __init__(self, use_alarm: bool):
        self.use_alarm = use_alarm
        self.outcomes: Counter = Counter()
        self.slowest = 0.0
        self.label = ""

    def __call__(self, data: bytes, source: str, what: str) -> str:
        start = time.perf_counter()
        if self.use_alarm:
            signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
        try:
            parse_xg_bytes(data, source)
            outcome = "ok"
        except XgFormatError as e:
            msg = str(e)
            assert msg.startswith(source + ": ") and "\n" not in msg, f"{what}: malformed message {msg!r}"
            assert "unexpected" not in msg, f"{what}: the reader's safety net caught {msg!r}"
            outcome = "error"
        except _Hang:
            pytest.fail(f"{what}: no answer within {CASE_SECONDS} s")
        except Exception as e:  # anything else is a bug
            pytest.fail(f"{what}: raised {type(e).__name__}: {e}")
        finally:
            if self.use_alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
        took = time.perf_counter() - start
        self.slowest = max(self.slowest, took)
        self.outcomes[outcome] += 1
        return outcome


def _n(count: int) -> int:
    return max(1, int(count * SCALE))


def _flip(data: bytes, rng: random.Random, lo: int, hi: int, flips: int) -> bytes:
    b = bytearray(data)
    for _ in range(flips):
        i = rng.randrange(lo, hi)
        b[i] ^= rng.randrange(1, 256)
    return bytes(b)


def _layout(data: bytes):
    """(thumbnail end, archive start, registry start, trailer start)."""
    t = xg_build.TRAILER.unpack_from(data, len(data) - 36)
    trailer = len(data) - 36
    reg = trailer - t[3]
    arch = reg - t[4]
    thumb_end = 8232 + struct.unpack_from("<i", data, 20)[0]
    return thumb_end, arch, reg, trailer


# ---------------------------------------------------------------------------
# The container
# ---------------------------------------------------------------------------


def test_fuzz_truncations(samples, fuzz):
    fuzz.label = "truncations"
    rng = random.Random(SEED + 1)
    for name, data in samples.items():
        thumb_end, arch, reg, trailer = _layout(data)
        for _ in range(_n(150)):
            zone = rng.randrange(4)
            if zone == 0:
                cut = rng.randrange(0, thumb_end + 1)
            elif zone == 1:
                cut = rng.randrange(arch, reg)
            else:
                cut = rng.randrange(reg, len(data))
            fuzz(data[:cut], name, f"{name} cut at {cut}")
        # and cut at the front: the end is intact, the header is not
        for _ in range(_n(20)):
            cut = rng.randrange(1, len(data))
            fuzz(data[cut:], name, f"{name} without its first {cut} bytes")
    assert fuzz.outcomes["ok"] == 0  # a cut file is always refused


def test_fuzz_header_flips(samples, fuzz):
    fuzz.label = "header flips"
    rng = random.Random(SEED + 2)
    data = samples[SAMPLE_NAMES[0]]
    thumb_end = _layout(data)[0]
    for _ in range(_n(250)):
        hi = 40 if rng.random() < 0.6 else thumb_end  # mostly the magic, sizes, GUID
        mutated = _flip(data, rng, 0, hi, rng.randrange(1, 6))
        fuzz(mutated, "h.xg", "header flip")
    assert fuzz.outcomes["ok"] > 0 and fuzz.outcomes["error"] > 0


def test_fuzz_archive_flips(samples, fuzz):
    fuzz.label = "archive flips"
    rng = random.Random(SEED + 3)
    unfixed = _Runner(fuzz.use_alarm)
    for name, data in samples.items():
        _, arch, reg, trailer = _layout(data)
        for _ in range(_n(100)):
            unfixed(_flip(data, rng, arch, trailer, rng.randrange(1, 4)), name, f"{name} archive flip")
        for _ in range(_n(120)):
            # flip, then recompute the archive CRC: the change reaches zlib
            lo = reg if rng.random() < 0.3 else arch
            mutated = xg_build.fix_archive_crc(_flip(data, rng, lo, trailer, rng.randrange(1, 4)))
            fuzz(mutated, name, f"{name} archive flip, CRC fixed")
    # every flip with the CRC left wrong is refused; with the CRC fixed, zlib or
    # a member CRC refuses nearly all (a flip in the code lengths of an unused
    # Huffman symbol can leave the output unchanged)
    assert unfixed.outcomes["error"] == sum(unfixed.outcomes.values())
    assert fuzz.outcomes["ok"] <= 0.02 * sum(fuzz.outcomes.values())


def test_fuzz_trailer(samples, fuzz):
    fuzz.label = "trailer"
    rng = random.Random(SEED + 4)
    fields = ("crc", "filecount", "version", "registrysize", "archivesize", "compressedregistry")
    for name, data in samples.items():
        n = len(data)
        for _ in range(_n(60)):
            fuzz(_flip(data, rng, n - 36, n, rng.randrange(1, 4)), name, f"{name} trailer flip")
        for _ in range(_n(40)):
            field = rng.choice(fields)
            value = rng.choice([0, 1, -1, 2, 3, 532, 2**31 - 1, -(2**31), rng.randrange(-(2**31), 2**31),
                                rng.randrange(0, n)])
            if field in ("crc", "compressedregistry"):
                value &= 0xFFFFFFFF  # unsigned fields
            fuzz(xg_build.set_trailer(data, **{field: value}), name, f"{name} trailer {field}={value}")


def _small_container(sample: bytes, n_records: int = 12) -> bytes:
    """The first records of a sample (its HeaderMatch, first game...) and its
    comments, in a fresh container: fast to parse."""
    members = _sample_members(sample)
    body = members["temp.xg"][: 2560 * n_records]
    out = {"temp.xg": body, "temp.xgi": body[:2560] * 2}
    if "temp.xgc" in members:
        out["temp.xgc"] = members["temp.xgc"]
    return build_xg_bytes(out, compression_level=1)


def test_fuzz_registry(samples, fuzz):
    fuzz.label = "registry"
    rng = random.Random(SEED + 5)
    base = _small_container(samples[SAMPLE_NAMES[0]])
    count = 3
    for _ in range(_n(400)):
        member = rng.randrange(count)
        r = rng.random()
        if r < 0.5:
            off, fmt = rng.choice([(512, "<i"), (516, "<i"), (520, "<i"), (524, "<I"), (528, "<B"), (0, "<B"), (256, "<B")])
            lim = 0xFF if fmt == "<B" else (0xFFFFFFFF if fmt == "<I" else 2**31 - 1)
            lo = 0 if fmt in ("<B", "<I") else -(2**31)
            value = rng.choice([0, 1, lim, rng.randrange(lo, lim), rng.randrange(0, min(lim, 5000))])
            mutated = xg_build.set_registry(base, member, off, fmt, value)
            what = f"registry member {member} @{off} = {value}"
        else:
            off = rng.randrange(532)
            value = rng.randrange(256)
            mutated = xg_build.set_registry(base, member, off, "<B", value)
            what = f"registry member {member} byte {off} = {value}"
        fuzz(mutated, "r.xg", what)
    assert fuzz.outcomes["ok"] > 0 and fuzz.outcomes["error"] > 0


# ---------------------------------------------------------------------------
# The records (valid container, CRCs right, changed contents)
# ---------------------------------------------------------------------------

def test_fuzz_records(samples, fuzz):
    fuzz.label = "records"
    rng = random.Random(SEED + 6)
    for name in SAMPLE_NAMES:
        members = _sample_members(samples[name])
        full = members["temp.xg"]
        n_rec = len(full) // 2560
        games = [k for k in range(n_rec) if full[2560 * k + 8] == 1]
        for _ in range(_n(600)):
            # HeaderMatch, a HeaderGame, then a window of that game's records
            # (a well-formed file before the change)
            g = rng.choice(games)
            start = rng.randrange(g + 1, n_rec)
            stop = min(n_rec, start + rng.randrange(0, 16))
            picked = [0, g] + [k for k in range(start, stop) if full[2560 * k + 8] in (2, 3)]
            body = bytearray(b"".join(full[2560 * k : 2560 * (k + 1)] for k in picked))
            what = [f"{name} records {picked}"]
            for _ in range(rng.randrange(1, 3)):
                what.append(_mutate_records(body, rng))
            out = {"temp.xg": bytes(body)}
            r = rng.random()
            if r < 0.1:
                cut = rng.randrange(len(body))
                out["temp.xg"] = bytes(body[:cut])
                what.append(f"temp.xg cut at {cut}")
            elif r < 0.25:
                out["temp.xgc"] = b"\r\n".join(_random_rtf(rng) for _ in range(rng.randrange(4)))
                what.append("random comments")
            elif r < 0.3:
                out["temp.xgr"] = bytes(rng.randrange(256) for _ in range(rng.choice([0, 2184, 2184 * 2, rng.randrange(5000)])))
                what.append("random rollouts")
            source = "p.xgp" if rng.random() < 0.1 else "m.xg"
            fuzz(build_xg_bytes(out, compression_level=1), source, "; ".join(what))
    assert fuzz.outcomes["ok"] > 0 and fuzz.outcomes["error"] > 0


def test_fuzz_fixture_versions(fuzz):
    """Byte flips on the built files of every version branch and on .xgp."""
    fuzz.label = "fixtures"
    rng = random.Random(SEED + 7)
    built = {v: xg_build.match_members(v) for v in (7, 8, 24, 25, 26, 27, 28, 30, 40)}
    built["move"] = xg_build.position_members("move")
    built["cube"] = xg_build.position_members("cube")
    for _ in range(_n(300)):
        key = rng.choice(list(built))
        members = dict(built[key])
        body = bytearray(members["temp.xg"])
        what = _mutate_records(body, rng)
        members["temp.xg"] = bytes(body)
        source = f"{key}.xgp" if key in ("move", "cube") else f"v{key}.xg"
        fuzz(build_xg_bytes(members, compression_level=1), source, f"{source}: {what}")
    assert fuzz.outcomes["ok"] > 0 and fuzz.outcomes["error"] > 0
