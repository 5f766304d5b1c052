"""eXtreme Gammon files (``.xg`` matches, ``.xgp`` positions) read into plain
Python data.

Written from the layout facts in ``../shared/docs/xg-format.md`` and
``../shared/docs/xg-offsets.txt`` (checked byte by byte on real files of file
versions 30 and 32); no other reader's code was used. What this module reads,
what it checks and what it infers is described in ``docs/xg-reader.md``.

The container (little-endian)::

    RichGameHeader   8232 bytes, magic "RGMH"
    thumbnail        a JPEG, skipped
    archive data     the members, each zlib-compressed
    registry         zlib-compressed, one 532-byte file record per member
    trailer          36 bytes: crc32 of [archive start, end - 36), filecount,
                     version, registrysize, archivesize, compressedregistry

Members: ``temp.xg`` (2560-byte records: HeaderMatch, HeaderGame, Cube, Move,
FooterGame, FooterMatch), ``temp.xgr`` (2184-byte rollout records, kept raw),
``temp.xgc`` (RTF comments, one per line), ``temp.xgi`` (ignored, CRC checked).

Record field names are the names of the facts (``ActiveP``, ``ErrMove``, ...),
so that a field can be looked up in the facts table by name. A field that the
file version does not have is ``None``.

Every problem with the input raises :class:`XgFormatError` (a ``ValueError``),
whose message is one line ``"<source>: <problem>"``. Every count, size and
offset read from the file is checked against the data before it is used, so no
loop runs longer than the data allows.

The package, along the format's seams: :mod:`.binary` (little-endian numbers,
Delphi strings and dates), :mod:`.records` (the ``temp.xg`` records),
:mod:`.container` (header, archive, registry, trailer; ``read_xg`` and
``parse_xg_bytes``), :mod:`.rtf` (the comments' plain text). The tests' writer
of containers is ``tests/fixtures/xg/xg_container.py``.
"""

from __future__ import annotations

from .binary import tdatetime_to_iso
from .container import (
    FILE_RECORD_SIZE,
    HEADER_SIZE,
    TRAILER_SIZE,
    ArchiveMember,
    RichGameHeader,
    XgComment,
    XgFile,
    XgFormatError,
    XgGame,
    parse_xg_bytes,
    read_xg,
)
from .records import (
    MAX_VERSION,
    MIN_VERSION,
    MONEY_MATCH_LENGTH,
    NOT_ANALYSED,
    RECORD_SIZE,
    ROLLOUT_RECORD_SIZE,
    Cube,
    EngineStructBestMove,
    EngineStructDoubleAction,
    FooterGame,
    FooterMatch,
    HeaderGame,
    HeaderMatch,
    Move,
    Record,
    TimeSetting,
    move_pairs,
)
from .rtf import rtf_to_text

__all__ = [
    "XgFormatError",
    "read_xg",
    "parse_xg_bytes",
    "rtf_to_text",
    "move_pairs",
    "tdatetime_to_iso",
    "XgFile",
    "XgGame",
    "XgComment",
    "RichGameHeader",
    "ArchiveMember",
    "HeaderMatch",
    "TimeSetting",
    "HeaderGame",
    "Cube",
    "EngineStructDoubleAction",
    "Move",
    "EngineStructBestMove",
    "FooterGame",
    "FooterMatch",
    "Record",
    "RECORD_SIZE",
    "ROLLOUT_RECORD_SIZE",
    "FILE_RECORD_SIZE",
    "HEADER_SIZE",
    "TRAILER_SIZE",
    "MIN_VERSION",
    "MAX_VERSION",
    "MONEY_MATCH_LENGTH",
    "NOT_ANALYSED",
]
