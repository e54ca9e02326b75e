"""Points in time as people type them: ``2h``, ``7d``, ``2026-05-01``, ``2026-05-01T10:00:00Z``
for ``--after``/``--before``, and the dates a question names in words ("on 3 June, 2023", "last
week") for retrieval to favour.

A relative span counts back from now; a date or time of ``--after``/``--before`` without a zone is in
this machine's time zone (``TZ``), as git reads one; the dates a question names are UTC days.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from ov.errors import InvalidInput
from ov.regex import LazyPattern

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
    # One without a zone is in this machine's, as git reads it and as `ov snapshot log` shows
    # times (events are filed by the local day): read as UTC, a time copied from the log was hours off.
    return parsed.timestamp()


# --- dates a question names ------------------------------------------------------------

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<{0}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{0}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{0}>(?:19|20)\d\d)"
# A month or a year standing alone is a date only after a word that places something in time
# ("in June", "of November", "summer 2021"): "may" and "march" are verbs too, and "2008" can be
# a count. A month followed by a number is left to the forms that read the number.
_LEAD = r"(?:in|on|during|since|until|till|by|before|after|of|from|through|last|this|next|early|mid|late|spring|summer|fall|autumn|winter)\s+(?:the\s+)?"
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_DATE_RE = LazyPattern(
    "|".join(
        (
            r"\b(?P<iy>\d{4})-(?P<im>\d\d)-(?P<id>\d\d)\b",
            r"\b" + _MONTH.format("m1") + r"\s+" + _DAY.format("d1") + r"\b(?:,?\s*" + _YEAR.format("y1") + r"\b)?",
            r"\b" + _DAY.format("d2") + r"\s+(?:of\s+)?" + _MONTH.format("m2") + r"\b(?:,?\s*" + _YEAR.format("y2") + r"\b)?",
            r"\b" + _MONTH.format("m3") + r",?\s+" + _YEAR.format("y3") + r"\b",
            r"\b" + _LEAD + _MONTH.format("m4") + r"\b(?!,?\s*\d)",
            r"\b" + _LEAD + _YEAR.format("y5") + r"\b(?!-\d)",
            r"\b(?P<rel>today|yesterday|(?:last|this)\s+(?:week|month|year)|(?P<n>\d{1,3}|a|an|one|two|three)\s+(?P<unit>day|week|month|year)s?\s+ago)\b",
        )
    ),
    re.IGNORECASE,
)
# Words without which a text names no date (a date with a number is found by its digits): most
# questions have neither, and skip compiling the pattern (~3 ms, on every prompt a hook searches).
_CUES = frozenset(_MONTHS) | {"today", "yesterday", "ago", "week", "month", "year"}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}
_DAY_SECONDS = 86400.0
# However exact a date, the record that answers it may be from a few days off: "what happened on
# 3 June" is often answered by a message of 5 June that says "two days ago".
_MIN_SLACK = 7 * _DAY_SECONDS


@dataclass(frozen=True)
class DateMention:
    """A span a text names: ``days`` days from a day, a month, or a year (UTC). ``year`` None is
    that month or day of any year ("in June")."""

    year: int | None
    month: int | None = None
    day: int | None = None
    days: int = 1

    def window(self, year: int) -> tuple[float, float] | None:
        """The span in ``year`` (its own year when it has one), as epoch seconds; None when the
        day does not exist that year (February 29)."""
        year = self.year or year
        if self.month is None:
            start, end = datetime(year, 1, 1), datetime(year + 1, 1, 1)
        elif self.day is None:
            start, end = datetime(year, self.month, 1), datetime(year + (self.month == 12), self.month % 12 + 1, 1)
        else:
            try:
                start = datetime(year, self.month, self.day)
            except ValueError:
                return None
            end = start + timedelta(days=self.days)
        return start.replace(tzinfo=timezone.utc).timestamp(), end.replace(tzinfo=timezone.utc).timestamp()

    def closeness(self, moment: float) -> float:
        """1 inside the span, falling linearly to 0 at the span's length (at least a week) outside
        it; a date of any year is as close as the nearest year's."""
        if self.year is not None:
            years: tuple[int, ...] = (self.year,)
        else:
            own = datetime.fromtimestamp(moment, tz=timezone.utc).year
            years = (own - 1, own, own + 1)
        best = 0.0
        for year in years:
            span = self.window(year)
            if span is None:
                continue
            start, end = span
            gap = start - moment if moment < start else max(0.0, moment - end)
            best = max(best, 1.0 - gap / max(end - start, _MIN_SLACK))
        return best


def mentioned_dates(text: str, *, now: float | None = None) -> list[DateMention]:
    """The dates ``text`` names, in order: calendar dates ("on 3 June, 2023", "October 13", "in July
    2022", "in June", "in 2023", "2023-06-03") and spans back from ``now`` ("yesterday", "last
    week", "three days ago"). A date that does not exist (February 30) is skipped; one without a
    year takes the year of the next date that has one ("between August 11 and August 15 2023")."""
    out = [mention for _match, mention in _dates_in(text, time.time() if now is None else now)]
    following = None
    for i in range(len(out) - 1, -1, -1):
        if out[i].year is None and following is not None:
            out[i] = replace(out[i], year=following)
        following = out[i].year if out[i].year is not None else following
    return out


def without_dates(text: str) -> str:
    """``text`` without the words of the dates it names (:func:`mentioned_dates`): what a question
    asks about beside when ("rotate API keys" of "rotate API keys last week")."""
    spans = [match.span() for match, _mention in _dates_in(text, 0.0)]
    for start, end in reversed(spans):
        text = f"{text[:start]} {text[end:]}"
    return text


def _dates_in(text: str, now: float) -> Iterator[tuple[re.Match, DateMention]]:
    """Each date ``text`` names with the words that name it, in order; a year not yet inferred."""
    if not any(char.isdigit() for char in text) and _CUES.isdisjoint(re.findall(r"[a-z]+", text.lower())):
        return
    for match in _DATE_RE.finditer(text):
        if match["rel"]:
            yield match, _relative(match, now)
            continue
        parts = {key[0]: value for key, value in match.groupdict().items() if value is not None}
        if "i" in parts:
            year, month, day = int(match["iy"]), int(match["im"]), int(match["id"])
        else:
            year = int(parts["y"]) if "y" in parts else None
            month = _MONTHS[parts["m"].lower()] if "m" in parts else None
            day = int(parts["d"]) if "d" in parts else None
            if parts.get("m") == "may" and year is None:
                continue  # "3 may be", "may 2 of them": lower case and no year, the verb
        try:
            datetime(year or 2000, month or 1, day or 1)  # 2000 is a leap year: February 29 of any year exists
        except ValueError:
            continue
        yield match, DateMention(year, month, day)


def _relative(match: re.Match, now: float) -> DateMention:
    """The span of "today", "yesterday", "last week", "this month", "two days ago"... before ``now``."""
    today = datetime.fromtimestamp(now, tz=timezone.utc).date()
    words = match["rel"].lower().split()
    if words[0] in ("today", "yesterday"):
        day = today - timedelta(days=words[0] == "yesterday")
        return DateMention(day.year, day.month, day.day)
    if words[-1] == "ago":
        count = _NUMBERS.get(match["n"].lower()) or int(match["n"])
        day = today - timedelta(days=count * _UNITS[match["unit"].lower()])
        return DateMention(day.year, day.month, day.day)
    back = words[0] == "last"
    if words[1] == "week":
        monday = today - timedelta(days=today.weekday() + 7 * back)
        return DateMention(monday.year, monday.month, monday.day, days=7)
    if words[1] == "month":
        year, month = (today.year - (today.month == 1), (today.month - 2) % 12 + 1) if back else (today.year, today.month)
        return DateMention(year, month)
    return DateMention(today.year - back)
