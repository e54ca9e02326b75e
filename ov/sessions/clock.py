"""The one clock sessions and memories are dated by.

A message's ``created_at``, a commit's and an ``ov remember``'s time (the day an event is filed
under and "tomorrow" in its text resolves against), a memory's ``created_at`` and ``updated_at``:
all read :func:`now`, so every date one call writes comes from one reading of one clock, and a
test that pins it here pins them all (a test whose expected day came from another clock failed
when its run crossed midnight).
"""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """This instant, in UTC."""
    return datetime.now(UTC)
