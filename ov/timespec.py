"""Points in time as people type them: ``2h``, ``7d``, ``2026-05-01``, ``2026-05-01T10:00:00Z``.

A relative span counts back from now; a date or time without a zone is UTC.
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone

from ov.errors import InvalidInput

_SPAN_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_time(text: str, *, now: float | None = None) -> float:
    """Seconds since the epoch for ``text``; InvalidInput when it is neither a span nor an ISO time."""
    value = text.strip()
    span = _SPAN_RE.match(value.lower())
    if span:
        return (time.time() if now is None else now) - float(span.group(1)) * _SECONDS[span.group(2)]
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(
            f"{text!r} is not a time",
            hint="use a span back from now (30m, 2h, 7d, 2w) or an ISO date/time (2026-05-01, 2026-05-01T10:00:00Z)",
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()
