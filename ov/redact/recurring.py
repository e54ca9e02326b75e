"""The values redaction took out of a session's messages, recognised where a later message repeats them.

A rule sees a secret by its context ("the new db password is Tr0ub4dor&3zz"); the agent's next
tool call (``Edit`` of ``.env`` with ``"new_string": "Tr0ub4dor&3zz"``) writes the same value with
no context at all. Each value taken out is remembered as a keyed digest, never as itself, and the
words of a later message are looked up among them; those found are taken out wherever they stand
(:func:`ov.redact.engine.replace_known`).

The state is a JSON-able dict kept out of the store (it is of this machine): a random key and
the digests by the value's length, in the account's state folder (:func:`state_path`). It goes
with its session: a commit that removes the session removes it (:func:`forget`), whatever made
the commit (``ov session delete``, ``ov rm``, a move, a restore, an import, a pull).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ov.regex import LazyPattern

__all__ = ["Removed", "forget", "state_path"]

# Shorter values match ordinary words: the engine's pieces of a known secret are as long at least.
MIN_CHARS = 8
# What no secret a rule takes out holds: whitespace, quotes, brackets, separators of a list.
_WORD = LazyPattern(rf"[^\s\"'`<>(){{}}\[\],;]{{{MIN_CHARS},}}")
# Where a word may hold a value after a name or before a host: `DB_PASSWORD=...`, `u:...@host`.
_JOINS = LazyPattern(r"[=:@/]")
# Joins looked at in one word: bounded, so a long word costs a bounded number of digests.
_MAX_JOINS = 12
_DIGEST_CHARS = 32


class Removed:
    """The digests of the values taken out of one session's messages so far."""

    def __init__(self, state: dict | None = None) -> None:
        state = state if isinstance(state, dict) else {}
        key = state.get("key")
        self._key = bytes.fromhex(key) if isinstance(key, str) and len(key) == 64 else os.urandom(32)
        digests = state.get("digests")
        self._digests: set[str] = {d for d in digests if isinstance(d, str)} if isinstance(digests, list) else set()
        lengths = state.get("lengths")
        self._lengths: set[int] = {n for n in lengths if isinstance(n, int)} if isinstance(lengths, list) else set()
        self.changed = False

    def _digest(self, value: str) -> str:
        return hmac.new(self._key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:_DIGEST_CHARS]

    def add(self, values: list[str]) -> None:
        for value in values:
            value = value.strip()
            if len(value) >= MIN_CHARS and (digest := self._digest(value)) not in self._digests:
                self._digests.add(digest)
                self._lengths.add(len(value))
                self.changed = True

    def find(self, value: Any) -> tuple[str, ...]:
        """The values in the strings of ``value`` (JSON-like data) that were taken out before."""
        if not self._digests:
            return ()
        found = []
        for text in _strings(value):
            for word in _WORD.findall(text):
                for candidate in _candidates(word.rstrip(".")):
                    if len(candidate) in self._lengths and self._digest(candidate) in self._digests:
                        found.append(candidate)
        return tuple(dict.fromkeys(found))

    def to_state(self) -> dict:
        return {"key": self._key.hex(), "digests": sorted(self._digests), "lengths": sorted(self._lengths)}


def state_path(state: Path, user: str, session_id: str) -> Path:
    """Where the digests of what redaction took out of ``user``'s session ``session_id`` are kept,
    in an account's state folder (``state``): of this machine, never in the store. One file per
    id, named by the id as it is (a valid id never starts with a dot; stripping one made a folder
    ``sessions/.x`` forget session ``x``'s)."""
    return state / "redacted" / user / f"{session_id}.json"


def forget(state: Path, sessions: Iterable[tuple[str, str]]) -> None:
    """Remove the digests of each ``(user, session id)`` of ``sessions``, removed from the store:
    they would outlive what the user deleted (and a later session given the same id would start
    with them). Called once the removal is committed; a file that cannot be removed stays, as the
    commit does. A folder whose name is no id (a hand-made ``sessions/.x``, ``..`` in a pulled
    tree) was never a session ov added messages to: it has nothing here, and its name is no path."""
    from ov.errors import InvalidId
    from ov.identity import validate_id

    for user, session_id in sessions:
        try:
            validate_id(user, "user")
            validate_id(session_id, "session")
        except InvalidId:
            continue
        try:
            state_path(state, user, session_id).unlink(missing_ok=True)
        except OSError:
            pass


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _candidates(word: str) -> Iterator[str]:
    """The word, and each span of it between two of its joins (or a join and an end)."""
    joins = list(_JOINS.finditer(word))[:_MAX_JOINS]
    cuts = [0, *(m.end() for m in joins)]
    ends = [*(m.start() for m in joins), len(word)]
    for start in cuts:
        for end in ends:
            if end - start >= MIN_CHARS:
                yield word[start:end]
