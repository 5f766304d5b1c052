"""The binary primitives of XG's records: little-endian numbers at an offset
of a fixed-size buffer (every offset used is inside it), Delphi
``string[n]`` and NUL-terminated UTF-16 text, and Delphi ``TDateTime``.

The ``_``-named readers are the package's own (records.py and container.py
use them); ``tdatetime_to_iso`` is public.
"""

from __future__ import annotations

import datetime as _dt
import math
import struct
from typing import Optional, Tuple

_TDATETIME_EPOCH = _dt.datetime(1899, 12, 30)
# datetime covers years 1..9999: days since 1899-12-30 in that range.
_TDATETIME_MIN = -693593.0
_TDATETIME_MAX = 2958465.0

_I8 = struct.Struct("<b").unpack_from
_U8 = struct.Struct("<B").unpack_from
_I16 = struct.Struct("<h").unpack_from
_I32 = struct.Struct("<i").unpack_from
_U32 = struct.Struct("<I").unpack_from
_I64 = struct.Struct("<q").unpack_from
_F32 = struct.Struct("<f").unpack_from
_F64 = struct.Struct("<d").unpack_from
_POS = struct.Struct("<26b").unpack_from


def _i8(b: bytes, o: int) -> int:
    return _I8(b, o)[0]


def _u8(b: bytes, o: int) -> int:
    return _U8(b, o)[0]


def _bool(b: bytes, o: int) -> bool:
    return b[o] != 0


def _i16(b: bytes, o: int) -> int:
    return _I16(b, o)[0]


def _i32(b: bytes, o: int) -> int:
    return _I32(b, o)[0]


def _u32(b: bytes, o: int) -> int:
    return _U32(b, o)[0]


def _i64(b: bytes, o: int) -> int:
    return _I64(b, o)[0]


def _f32(b: bytes, o: int) -> float:
    return _F32(b, o)[0]


def _f64(b: bytes, o: int) -> float:
    return _F64(b, o)[0]


def _pos(b: bytes, o: int) -> Tuple[int, ...]:
    return _POS(b, o)


def _ints(b: bytes, o: int, n: int) -> Tuple[int, ...]:
    return struct.unpack_from(f"<{n}i", b, o)


def _f32s(b: bytes, o: int, n: int) -> Tuple[float, ...]:
    return struct.unpack_from(f"<{n}f", b, o)


def _f64s(b: bytes, o: int, n: int) -> Tuple[float, ...]:
    return struct.unpack_from(f"<{n}d", b, o)


def _ansi(b: bytes, o: int, n: int) -> str:
    """Delphi ``string[n]``: a length byte, then up to n bytes of ANSI text
    (Windows code page 1252). A length above n is clamped to n."""
    ln = min(b[o], n)
    return b[o + 1 : o + 1 + ln].decode("cp1252", "replace")


def _wide(b: bytes, o: int, nchars: int) -> str:
    """NUL-terminated UTF-16 text of at most ``nchars`` WideChars."""
    raw = b[o : o + 2 * nchars]
    for i in range(0, len(raw) - 1, 2):
        if raw[i] == 0 and raw[i + 1] == 0:
            raw = raw[:i]
            break
    return raw.decode("utf-16-le", "replace")


def tdatetime_to_iso(value: float, with_time: bool = False) -> Optional[str]:
    """A Delphi ``TDateTime`` (days since 1899-12-30) as an ISO date
    (``YYYY-MM-DD``), or date and time to the second with ``with_time``.
    ``None`` for 0 (XG's "no date") and for values no calendar date has."""
    if not isinstance(value, float) or not math.isfinite(value) or value == 0.0:
        return None
    if not (_TDATETIME_MIN <= value <= _TDATETIME_MAX):
        return None
    try:
        when = _TDATETIME_EPOCH + _dt.timedelta(seconds=round(value * 86400.0))
    except (OverflowError, ValueError):
        return None
    return when.isoformat() if with_time else when.date().isoformat()
