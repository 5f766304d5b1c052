"""The XG container (little-endian)::

    RichGameHeader   8232 bytes, magic "RGMH"
    thumbnail        a JPEG, skipped
    archive data     the members, each zlib-compressed
    registry         zlib-compressed, one 532-byte file record per member
    trailer          36 bytes: crc32 of [archive start, end - 36), filecount,
                     version, registrysize, archivesize, compressedregistry

Members: ``temp.xg`` (2560-byte records, :mod:`.records`), ``temp.xgr``
(2184-byte rollout records, kept raw), ``temp.xgc`` (RTF comments, one per
line, :mod:`.rtf`), ``temp.xgi`` (ignored, CRC checked).

Every problem with the input raises :class:`XgFormatError` (a ``ValueError``),
whose message is one line ``"<source>: <problem>"``. Every count, size and
offset read from the file is checked against the data before it is used, so no
loop runs longer than the data allows.
"""

from __future__ import annotations

import os
import struct
import uuid
import zlib
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

from ...errors import BlunderError
from ..files import MAX_MATCH_FILE_SIZE, read_match_bytes
from .binary import _i32, _i64, _u32, _wide
from .records import (
    DMLI_MAGIC,
    ENTRY_TYPES,
    MAX_VERSION,
    MIN_VERSION,
    RECORD_PARSERS,
    RECORD_SIZE,
    ROLLOUT_RECORD_SIZE,
    Cube,
    FooterGame,
    FooterMatch,
    HeaderGame,
    HeaderMatch,
    Move,
    Record,
    parse_header_match,
)
from .rtf import rtf_to_text

HEADER_MAGIC = b"RGMH"
HEADER_SIZE = 8232  # sizeof(RichGameHeader)
TRAILER_SIZE = 36  # ZLB ArchiveRecord, at the end of the file
FILE_RECORD_SIZE = 532  # ZLB FileRecord, in the registry

MEMBER_MATCH = "temp.xg"
MEMBER_INDEX = "temp.xgi"
MEMBER_ROLLOUTS = "temp.xgr"
MEMBER_COMMENTS = "temp.xgc"

# Bounds against hostile input (not from the facts): far above any real file.
# A temp.xg of 64 MiB is 26,000 records (the samples: 400-700); the comments,
# turned into text character by character, are held to 8 MiB (about 2 s).
MAX_FILE_SIZE = MAX_MATCH_FILE_SIZE  # 256 MiB, every match file's limit (importers/files.py)
MAX_MEMBER_SIZE = 64 * 1024 * 1024
MAX_COMMENTS_SIZE = 8 * 1024 * 1024
MAX_MEMBERS = 1024

_TRAILER = struct.Struct("<iiiiii")
_FILEREC_NUMS = struct.Struct("<iiiIBB")


class XgFormatError(ValueError, BlunderError):
    """The data is not a readable XG file.

    ``str(err)`` is one line ``"<source>: <problem>"``; ``source`` and
    ``problem`` are also attributes.
    """

    def __init__(self, source: str, problem: str):
        self.source = _one_line(str(source))
        self.problem = _one_line(str(problem))
        super().__init__(f"{self.source}: {self.problem}")

    def __reduce__(self):  # picklable (e.g. across worker processes)
        return (type(self), (self.source, self.problem))


def _one_line(s: str) -> str:
    return " ".join(s.split()) if ("\n" in s or "\r" in s) else s


@dataclass(frozen=True)
class RichGameHeader:
    """The first 8232 bytes of the file."""

    Magic: bytes
    HeaderVersion: int
    HeaderSize: int
    ThumbnailOffset: int
    ThumbnailSize: int
    GUID: str
    GameName: str
    SaveName: str
    LevelName: str
    Comments: str


@dataclass(frozen=True)
class ArchiveMember:
    """One registry file record (532 bytes). ``start`` is relative to the
    archive start; ``compressed`` is ``flag == 0``."""

    name: str
    path: str
    osize: int
    csize: int
    start: int
    crc: int
    compressed: bool
    compression_level: int


@dataclass(frozen=True)
class XgComment:
    """One comment of ``temp.xgc``: its index (what the records' Comment*
    fields hold), the RTF with CRLF restored, and the plain text."""

    index: int
    rtf: str
    text: str


@dataclass(frozen=True)
class XgGame:
    """A HeaderGame, the Cube and Move records that follow it in file order,
    and its FooterGame (``None`` when the game has none: unfinished game,
    position file)."""

    header: HeaderGame
    records: Tuple[Union[Cube, Move], ...]
    footer: Optional[FooterGame]

    @property
    def moves(self) -> Tuple[Move, ...]:
        return tuple(r for r in self.records if isinstance(r, Move))

    @property
    def cubes(self) -> Tuple[Cube, ...]:
        return tuple(r for r in self.records if isinstance(r, Cube))


@dataclass(frozen=True)
class XgFile:
    """A whole ``.xg`` or ``.xgp`` file.

    ``records`` are all temp.xg records in file order; ``match``, ``games``
    and ``footer`` are the same records grouped. ``rollouts`` are the raw
    2184-byte temp.xgr records (their layout is not in the facts)."""

    source: str
    kind: str  # "match" or "position"
    header: RichGameHeader
    archive_version: int
    members: Tuple[ArchiveMember, ...]
    records: Tuple[Record, ...]
    match: HeaderMatch
    games: Tuple[XgGame, ...]
    footer: Optional[FooterMatch]
    comments: Tuple[XgComment, ...]
    rollouts: Tuple[bytes, ...]

    @property
    def version(self) -> int:
        return self.match.Version

    @property
    def moves(self) -> Tuple[Move, ...]:
        return tuple(r for r in self.records if isinstance(r, Move))

    @property
    def cubes(self) -> Tuple[Cube, ...]:
        return tuple(r for r in self.records if isinstance(r, Cube))

    def comment(self, index: int) -> Optional[XgComment]:
        """The comment a record's Comment* field points to; ``None`` for -1
        or an index past the comments the file holds."""
        if isinstance(index, int) and 0 <= index < len(self.comments):
            return self.comments[index]
        return None


class _Reader:
    def __init__(self, data: bytes, source: str):
        self.data = data
        self.source = source

    def fail(self, problem: str) -> XgFormatError:
        return XgFormatError(self.source, problem)

    # -- header --------------------------------------------------------------

    def header(self) -> RichGameHeader:
        d = self.data
        if len(d) >= 4 and d[:4] != HEADER_MAGIC:
            raise self.fail(f"wrong magic {bytes(d[:4])!r} (expected b'RGMH'): not an XG file")
        if len(d) < HEADER_SIZE:
            raise self.fail(f"truncated header: {len(d)} bytes, the RichGameHeader needs {HEADER_SIZE}")
        hsize = _i32(d, 8)
        if hsize != HEADER_SIZE:
            raise self.fail(f"header size {hsize} does not match the RichGameHeader ({HEADER_SIZE})")
        toff = _i64(d, 12)
        tsize = _i32(d, 20)
        if tsize < 0:
            raise self.fail(f"sizes do not add up: thumbnail size {tsize}")
        return RichGameHeader(
            Magic=bytes(d[:4]),
            HeaderVersion=_i32(d, 4),
            HeaderSize=hsize,
            ThumbnailOffset=toff,
            ThumbnailSize=tsize,
            GUID=str(uuid.UUID(bytes_le=bytes(d[24:40]))),
            GameName=_wide(d, 40, 1024),
            SaveName=_wide(d, 2088, 1024),
            LevelName=_wide(d, 4136, 1024),
            Comments=_wide(d, 6184, 1024),
        )

    # -- archive -------------------------------------------------------------

    def archive(self, hdr: RichGameHeader):
        d = self.data
        n = len(d)
        # XG's recipe: the content starts at sizeof(RichGameHeader) +
        # ThumbnailSize (ThumbnailOffset is 0 in every sample and not used).
        # The archive is read from its end and may start no earlier.
        thumb_end = HEADER_SIZE + hdr.ThumbnailSize
        if n < HEADER_SIZE + TRAILER_SIZE:
            raise self.fail(f"truncated archive: {n - HEADER_SIZE} bytes after the header, no room for the trailer")
        crc, count, version, regsize, archsize, compreg = _TRAILER.unpack_from(d, n - TRAILER_SIZE)
        trailer_at = n - TRAILER_SIZE
        if regsize <= 0 or archsize < 0:
            raise self.fail(f"sizes do not add up: trailer gives registry size {regsize}, archive size {archsize}")
        if count <= 0 or count > MAX_MEMBERS:
            raise self.fail(f"sizes do not add up: trailer gives {count} archive members")
        reg_at = trailer_at - regsize
        arch_at = reg_at - archsize
        if arch_at < thumb_end:
            raise self.fail(
                f"truncated archive: the trailer declares {archsize} bytes of members and {regsize} of registry, "
                f"but only {max(0, trailer_at - thumb_end)} bytes lie between the thumbnail and the trailer"
            )
        got = zlib.crc32(d[arch_at:trailer_at]) & 0xFFFFFFFF
        if got != (crc & 0xFFFFFFFF):
            raise self.fail(f"bad archive CRC: stored {crc & 0xFFFFFFFF:08x}, computed {got:08x}")
        regraw = d[reg_at:trailer_at]
        want = count * FILE_RECORD_SIZE
        if compreg:
            registry = self._inflate(regraw, want, "the registry")
        else:
            registry = bytes(regraw)
        if len(registry) != want:
            raise self.fail(
                f"sizes do not add up: registry holds {len(registry)} bytes, {count} file records need {want}"
            )
        members: List[ArchiveMember] = []
        contents: Dict[str, bytes] = {}
        for k in range(count):
            rec = registry[k * FILE_RECORD_SIZE : (k + 1) * FILE_RECORD_SIZE]
            name = rec[1 : 1 + min(rec[0], 255)].decode("latin-1")
            path = rec[257 : 257 + min(rec[256], 255)].decode("latin-1")
            osize, csize, start, mcrc, flag, level = _FILEREC_NUMS.unpack_from(rec, 512)
            m = ArchiveMember(name, path, osize, csize, start, mcrc, flag == 0, level)
            members.append(m)
            label = f"member {k} ({name!r})"
            key = name.lower()
            if key in contents:
                raise self.fail(f"{label} appears twice in the registry")
            if osize < 0 or csize < 0 or start < 0:
                raise self.fail(f"sizes do not add up: {label} has size {osize}, packed size {csize}, start {start}")
            limit = MAX_COMMENTS_SIZE if key == MEMBER_COMMENTS else MAX_MEMBER_SIZE
            if osize > limit:
                raise self.fail(f"sizes do not add up: {label} claims {osize} bytes (limit {limit})")
            if start + csize > archsize:
                raise self.fail(
                    f"truncated member: {label} spans bytes {start}..{start + csize} of an archive of {archsize}"
                )
            raw = d[arch_at + start : arch_at + start + csize]
            if m.compressed:
                body = self._inflate(raw, osize, label)
            else:
                body = bytes(raw)
            if len(body) != osize:
                raise self.fail(f"sizes do not add up: {label} unpacks to {len(body)} bytes, registry says {osize}")
            got = zlib.crc32(body) & 0xFFFFFFFF
            if got != mcrc:
                raise self.fail(f"bad CRC of {label}: stored {mcrc:08x}, computed {got:08x}")
            contents[key] = body
        return version, tuple(members), contents

    def _inflate(self, raw: bytes, expected: int, label: str) -> bytes:
        """zlib-decompress ``raw``, producing at most ``expected`` + 1 bytes."""
        dec = zlib.decompressobj()
        try:
            out = dec.decompress(raw, expected + 1)
        except zlib.error as e:
            raise self.fail(f"cannot decompress {label}: {e}") from e
        if len(out) > expected:
            raise self.fail(f"sizes do not add up: {label} unpacks to more than {expected} bytes")
        if not dec.eof:
            raise self.fail(f"truncated {label}: its compressed stream ends early")
        return out

    # -- records -------------------------------------------------------------

    def records(self, body: bytes) -> Tuple[Record, ...]:
        n = len(body)
        if n == 0:
            raise self.fail("temp.xg holds no record")
        if n % RECORD_SIZE:
            k = n // RECORD_SIZE
            raise self.fail(
                f"truncated record: temp.xg is {n} bytes, record {k} has {n - k * RECORD_SIZE} of {RECORD_SIZE}"
            )
        first = body[:RECORD_SIZE]
        if first[8] != 0:
            what = ENTRY_TYPES.get(first[8], "unknown")
            raise self.fail(f"record 0 is EntryType {first[8]} ({what}), expected 0 (HeaderMatch)")
        magic = _u32(first, 556)
        if magic != DMLI_MAGIC:
            raise self.fail(f"bad HeaderMatch magic 0x{magic:08x} (expected 0x{DMLI_MAGIC:08x}, 'DMLI')")
        version = _i32(first, 552)
        if not (MIN_VERSION <= version <= MAX_VERSION):
            raise self.fail(f"file version {version} outside the known range {MIN_VERSION}..{MAX_VERSION}")
        out: List[Record] = [parse_header_match(first, 0)]
        for k in range(1, n // RECORD_SIZE):
            r = body[k * RECORD_SIZE : (k + 1) * RECORD_SIZE]
            t = r[8]
            if t == 0:
                raise self.fail(f"record {k}: a second HeaderMatch")
            parse = RECORD_PARSERS.get(t)
            if parse is None:
                raise self.fail(f"record {k}: unknown record type (EntryType {t}, expected 0-5)")
            out.append(parse(r, k, version))
        return tuple(out)

    def group(self, records: Sequence[Record], kind: str):
        match = records[0]
        games: List[XgGame] = []
        header: Optional[HeaderGame] = None
        body: List[Union[Cube, Move]] = []
        footer: Optional[FooterMatch] = None

        def close(game_footer: Optional[FooterGame]) -> None:
            games.append(XgGame(header, tuple(body), game_footer))

        for r in records[1:]:
            name = type(r).__name__
            if footer is not None:
                raise self.fail(f"record {r.index}: {name} after the FooterMatch")
            if isinstance(r, HeaderGame):
                if header is not None:
                    close(None)
                header, body = r, []
            elif isinstance(r, (Cube, Move)):
                if header is None:
                    raise self.fail(f"record {r.index}: {name} outside a game (no HeaderGame before it)")
                body.append(r)
            elif isinstance(r, FooterGame):
                if header is None:
                    raise self.fail(f"record {r.index}: FooterGame outside a game (no HeaderGame before it)")
                close(r)
                header, body = None, []
            elif isinstance(r, FooterMatch):
                if header is not None:
                    close(None)
                    header, body = None, []
                footer = r
        if header is not None:
            close(None)
        if kind == "position":
            types = [type(r).__name__ for r in records]
            if (
                len(records) != 3
                or not isinstance(records[1], HeaderGame)
                or not isinstance(records[2], (Cube, Move))
            ):
                raise self.fail(
                    "a position file holds HeaderMatch, HeaderGame and one Cube or Move record; found "
                    + ", ".join(types)
                )
        return match, tuple(games), footer

    # -- comments and rollouts -----------------------------------------------

    def comments(self, body: Optional[bytes]) -> Tuple[XgComment, ...]:
        if not body:
            return ()
        lines = body.split(b"\r\n")
        if lines and lines[-1] == b"":
            lines.pop()
        out = []
        for k, line in enumerate(lines):
            rtf = line.replace(b"\x01\x02", b"\r\n").decode("cp1252", "replace")
            out.append(XgComment(k, rtf, rtf_to_text(rtf)))
        return tuple(out)

    def rollouts(self, body: Optional[bytes]) -> Tuple[bytes, ...]:
        if not body:
            return ()
        if len(body) % ROLLOUT_RECORD_SIZE:
            raise self.fail(
                f"sizes do not add up: temp.xgr is {len(body)} bytes, not a whole number of "
                f"{ROLLOUT_RECORD_SIZE}-byte rollout records"
            )
        return tuple(body[k : k + ROLLOUT_RECORD_SIZE] for k in range(0, len(body), ROLLOUT_RECORD_SIZE))


def _kind_from(source: str, kind: Optional[str], records: Sequence[Record]) -> str:
    if kind is not None:
        return kind
    low = source.lower()
    if low.endswith(".xgp"):
        return "position"
    if low.endswith(".xg"):
        return "match"
    # No telling suffix: a position file is the three records without footers.
    if (
        len(records) == 3
        and isinstance(records[1], HeaderGame)
        and isinstance(records[2], (Cube, Move))
    ):
        return "position"
    return "match"


def _parse(data: bytes, source: str, kind: Optional[str]) -> XgFile:
    rd = _Reader(data, source)
    if len(data) > MAX_FILE_SIZE:
        raise rd.fail(f"file of {len(data)} bytes is larger than any XG file ({MAX_FILE_SIZE})")
    hdr = rd.header()
    archive_version, members, contents = rd.archive(hdr)
    body = contents.get(MEMBER_MATCH)
    if body is None:
        raise rd.fail(f"member {MEMBER_MATCH} missing from the archive")
    records = rd.records(body)
    k = _kind_from(source, kind, records)
    match, games, footer = rd.group(records, k)
    return XgFile(
        source=source,
        kind=k,
        header=hdr,
        archive_version=archive_version,
        members=members,
        records=records,
        match=match,
        games=games,
        footer=footer,
        comments=rd.comments(contents.get(MEMBER_COMMENTS)),
        rollouts=rd.rollouts(contents.get(MEMBER_ROLLOUTS)),
    )


def parse_xg_bytes(data: bytes, source: str = "<bytes>", kind: Optional[str] = None) -> XgFile:
    """Read an XG file from memory.

    ``source`` names the data in error messages (a path, an upload name).
    ``kind`` is ``"match"`` or ``"position"``; when ``None`` it comes from
    the suffix of ``source`` (``.xgp`` → position, ``.xg`` → match), and
    without one from the records (HeaderMatch, HeaderGame and one Cube or Move
    → position). A position file must hold exactly those three records.

    Raises :class:`XgFormatError` and nothing else for any ``data``.
    """
    source = str(source)
    if kind not in (None, "match", "position"):
        raise XgFormatError(source, f"kind must be 'match' or 'position', not {kind!r}")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise XgFormatError(source, f"data is not bytes ({type(data).__name__})")
    data = bytes(data)
    try:
        return _parse(data, source, kind)
    except XgFormatError:
        raise
    except Exception as e:  # a safety net: every check above should come first
        raise XgFormatError(source, f"unexpected malformed data ({type(e).__name__}: {e})") from e


def read_xg(path: Union[str, "os.PathLike[str]"], kind: Optional[str] = None) -> XgFile:
    """Read an ``.xg`` or ``.xgp`` file. An unreadable file raises
    :class:`XgFormatError` too (the ``OSError`` is its ``__cause__``)."""
    try:
        source = os.fspath(path)
    except TypeError as e:
        raise XgFormatError(repr(path), f"not a file path ({type(path).__name__})") from e
    source = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    try:
        # a regular file within MAX_FILE_SIZE, refused before it is read;
        # the open never blocks (a FIFO)
        data = read_match_bytes(path, MAX_FILE_SIZE)
    except OSError as e:
        raise XgFormatError(source, f"cannot read the file: {e.strerror or e}") from e
    return parse_xg_bytes(data, source, kind)
