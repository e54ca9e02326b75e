"""Applying the redaction rules: session messages are scrubbed before anything reaches disk.

``redact(text)`` replaces every secret it recognises with ``[REDACTED:<rule>]``
and says how many it replaced; ``redact_value(value)`` does the same for every
string inside JSON-like data (tool inputs and outputs). Both are idempotent:
a marker is never matched again, so redacting twice changes nothing more.

What is recognised is the table in :mod:`ov.redact.rules`, applied in its
order. Name/value pairs in data (``{"name": "DB_PASSWORD", "value": ...}``) are
judged like ``DB_PASSWORD=...``.
"""

from __future__ import annotations

import functools
from typing import Any

from ov.redact.checks import MARKER, QUOTE_GROUPS, is_secret_name, is_secret_value
from ov.redact.rules import CONTEXTUAL, RULES, Rule
from ov.regex import LazyPattern
from ov.urls import replace_userinfo

__all__ = ["redact", "redact_known", "redact_value", "replace_known"]


def _marker(name: str) -> str:
    return f"{MARKER}{name}]"


@functools.cache
def _secret_groups(pattern: LazyPattern) -> tuple[str, ...]:
    """The groups of a rule's pattern that hold the secret (the rest of the match is kept)."""
    return tuple(g for g in pattern.groupindex if g.startswith("secret") or g in QUOTE_GROUPS)


_LONGEST_MARKER = max(len(_marker(rule.name)) for rule in RULES)


def _in_marker(text: str, start: int, end: int) -> bool:
    """The span overlaps a marker an earlier rule left (the patterns' own guards aside)."""
    if MARKER[1:-1] in text[start:end]:
        return True
    before = text[max(0, start - _LONGEST_MARKER) : start]
    opened = before.rfind(MARKER)
    return opened != -1 and "]" not in before[opened:]


def _apply(rule: Rule, text: str, check, removed: list[str] | None) -> tuple[str, int]:
    groups = _secret_groups(rule.pattern)
    marker = _marker(rule.name)
    has_markers = MARKER in text
    search = rule.pattern.search
    pieces: list[str] = []
    done = pos = 0
    # Text searched twice; capped so that chains such as `key=key=key=...` stay linear.
    rescan_budget = len(text) + 4096
    while (m := search(text, pos)) is not None:
        start, end = m.span()
        for group in groups:
            if m.start(group) != -1:
                start, end = m.span(group)
                break
        if (has_markers and _in_marker(text, start, end)) or (check is not None and not check(m, start, end)):
            # Not re.sub: a rejected match may hold a secret of its own, as in
            # `"command": "TOKEN=abc123 ./run.sh"`, so the search resumes inside it.
            pos = max(start, m.start() + 1)
            rescan_budget -= m.end() - pos
            if rescan_budget < 0:
                pos = max(m.end(), pos)
            continue
        pieces += (text[done:start], marker)
        if removed is not None:
            removed.append(text[start:end])
        done = end
        pos = max(m.end(), m.start() + 1)
    if not pieces:
        return text, 0
    pieces.append(text[done:])
    return "".join(pieces), len(pieces) // 2


def redact(text: str, *, by_shape_only: bool = False, removed: list[str] | None = None) -> tuple[str, int]:
    """``text`` with every recognised secret replaced by ``[REDACTED:<rule>]``, and how many.
    ``by_shape_only``: hold the rules that judge a value by its context (:data:`CONTEXTUAL`) to
    their ``by_shape`` checks, or leave them out (documents and code, not settings files).
    ``removed``: a list to which each secret taken out is appended."""
    if not text:
        return text, 0
    # Lowered once: redaction only removes hints (markers are never matched again).
    lowered = text.lower()
    total = 0
    for rule in RULES:
        check = rule.check
        if by_shape_only and rule.name in CONTEXTUAL:
            if rule.by_shape is None:
                continue
            check = rule.by_shape
        if any(hint in lowered for hint in rule.hints):
            text, count = _apply(rule, text, check, removed)
            total += count
    return text, total


# How far around what a write changed its seams are read again: a secret that one write
# completes (a key sent in two `append`s, an `edit` that finishes one) lies across a seam, and a
# private key's block (BEGIN to END, a few KB) is the longest secret a rule reads.
SEAM_CHARS = 16384


def redact_span(text: str, start: int, end: int) -> tuple[str, int]:
    """``text`` with the secrets redacted that lie in ``text[start:end]`` (what a write put there)
    or across its seams: :func:`redact` from the line holding :data:`SEAM_CHARS` before ``start``
    to the end of the line holding as many after ``end``. Redacting each part alone kept a key
    split in two whole. What lies further off is left as it was written."""
    low = text.rfind("\n", 0, max(0, start - SEAM_CHARS)) + 1
    high = text.find("\n", min(len(text), end + SEAM_CHARS))
    high = len(text) if high == -1 else high
    redacted, count = redact(text[low:high])
    return (text[:low] + redacted + text[high:], count) if count else (text, 0)


# A piece of a known secret this long, echoed back ("Incorrect API key provided: sk-proj-AbCdEfGh..."),
# gives away most of it; shorter runs match ordinary words.
KNOWN_PIECE_CHARS = 8


def replace_known(text: str, known: tuple[str, ...]) -> str:
    """``text`` with the ``known`` secret values, and any word that is a piece of one at least
    :data:`KNOWN_PIECE_CHARS` long, replaced by ``[REDACTED:known_secret]``."""
    secrets = [s for s in known if s and len(s) >= KNOWN_PIECE_CHARS]
    if not secrets:
        return text
    import re  # Deferred: known values are rare, and hooks import this module on every turn.

    marker = _marker("known_secret")
    for secret in secrets:
        text = text.replace(secret, marker)

    def piece(match: re.Match) -> str:
        word = match.group(0).rstrip(".")
        if len(word) >= KNOWN_PIECE_CHARS and any(word in secret for secret in secrets):
            return marker + match.group(0)[len(word) :]
        return match.group(0)

    return re.sub(rf"[A-Za-z0-9_\-.~+/=]{{{KNOWN_PIECE_CHARS},}}", piece, text)


def redact_known(text: str, known: tuple[str, ...] = ()) -> str:
    """``text`` fit to show or store although it came from outside ov (a server's error message,
    a URL the user configured): the ``known`` secret values go (:func:`replace_known`); the user
    name and password of a URL go; then what :func:`redact` recognises."""
    text = replace_known(text, known)
    text = replace_userinfo(text, _marker("url_userinfo"))
    return redact(text)[0]


# Lists of settings as objects: `{"name": "DB_PASSWORD", "value": "..."}` (Kubernetes, ECS, GitHub),
# `{"key": ..., "value": ...}` (Postman, Terraform), `{"ParameterKey", "ParameterValue"}` (CloudFormation).
_NAME_VALUE_KEYS = (("name", "value"), ("key", "value"), ("Name", "Value"), ("Key", "Value"), ("ParameterKey", "ParameterValue"))


def redact_value(value: Any, *, known: tuple[str, ...] = (), removed: list[str] | None = None) -> tuple[Any, int]:
    """Redact every string inside dicts, lists and tuples; returns (new value, count).

    A string under a secret-looking key (``{"password": "hunter2"}``), or the value of
    a name/value pair naming a secret (``{"name": "DB_PASSWORD", "value": "hunter2"}``), is
    replaced whole, since the key is the only sign that it is a secret. ``known``: secret values
    to take out wherever they stand (:func:`replace_known`); ``removed``: as for :func:`redact`.
    """
    if isinstance(value, str):
        if known:
            text = replace_known(value, known)
            text, count = redact(text, removed=removed)
            return text, count + text.count(_marker("known_secret")) - value.count(_marker("known_secret"))
        return redact(value, removed=removed)
    if isinstance(value, dict):
        total = 0
        out = {}
        for key, item in value.items():
            if isinstance(key, str):
                key, n = redact(key, removed=removed)
                total += n
            item, n = redact_value(item, known=known, removed=removed)
            total += n
            secret_key = isinstance(key, str) and is_secret_name(key)
            if secret_key and isinstance(item, str) and is_secret_value(item, quoted=True, name=key):
                if removed is not None:
                    removed.append(item)
                item = _marker("assigned_secret")
                total += 1
            out[key] = item
        for name_key, value_key in _NAME_VALUE_KEYS:
            name, item = out.get(name_key), out.get(value_key)
            if isinstance(name, str) and isinstance(item, str) and is_secret_name(name) and is_secret_value(item, quoted=True, name=name):
                if removed is not None:
                    removed.append(item)
                out[value_key] = _marker("assigned_secret")
                total += 1
        return out, total
    if isinstance(value, (list, tuple)):
        total = 0
        items = []
        for item in value:
            item, n = redact_value(item, known=known, removed=removed)
            total += n
            items.append(item)
        return (items if isinstance(value, list) else tuple(items)), total
    return value, 0
