"""Which of a memory file's session archives a line of it came from, for ``ov forget --match``.

A memory file names as its sources every session archive that ever changed it: profile.md, which
gathers the employer, the editor and the city, names every conversation that added one of them.
Forgetting one line, the warning that the words are still searchable names the archives that
hold that line's words, not the others, and none for a line that came from ``ov remember``:
the user told to ``ov rm -r`` an archive would otherwise delete a conversation that never said it.

An archive holds a line when its ``memory_diff.json`` shows it adding the line to the file, or when
its messages hold every word the line's value is made of (a key's value: "vim" of "Editor: vim";
else the line's words but its lead and small words: "acme", "corp", "payments" of "Works at Acme
Corp on the payments team"), each compared by its stem ("deploys" is said as "deploy").
"""

from __future__ import annotations

import json
import re

from ov.errors import InvalidInput
from ov.store.store import Store
from ov.uri import VikingURI

# Words of a line's wording rather than of what was said: the leads the rules write ("Prefers",
# "Team no longer uses", "Is", "Works at") and the small words around a value.
_WORDING = frozenset((
    "prefers", "likes", "loves", "enjoys", "dislikes", "hates", "uses", "works", "team", "no", "longer", "does", "not",
    "is", "are", "was", "has", "have", "always", "never", "use", "the", "a", "an", "at", "on", "in", "for", "of", "to",
    "with", "as", "and", "or", "by", "from", "my", "their", "our", "your", "its", "it", "this", "that",
))
_WORD_RE = re.compile(r"[\w'+#.-]+")
# A stem of this many letters at least is one word's ("deplo" of "deploys", "deploy", "deployed").
_STEM = 4
_KEY_RE = re.compile(r"^(?P<key>[^:]{1,40}):\s+(?P<value>\S.*)$")


def line_words(line: str) -> list[str]:
    """The words of a memory line a conversation that said it holds, lowercased: its value's for a
    key's line, else its own without the lead and the small words."""
    body = re.sub(r"^\s*[-*+]\s+", "", line).strip()
    keyed = _KEY_RE.match(body)
    said = keyed.group("value") if keyed and len(keyed.group("key").split()) <= 3 else body
    words = (w.strip(".-'").lower() for w in _WORD_RE.findall(said))
    return list(dict.fromkeys(w for w in words if w and w not in _WORDING))


def archives_holding(store: Store, uri: VikingURI, archives: list[str], line: str) -> list[str] | None:
    """The ``archives`` (URIs of session archives) that added ``line`` to the memory ``uri`` or
    whose messages hold its words; None when the line has no word to look for, so that which
    holds it cannot be told."""
    words = line_words(line)
    if not words:
        return None
    return [archive for archive in archives if _added(store, archive, uri, line) or _says(store, archive, words)]


def _added(store: Store, archive: str, uri: VikingURI, line: str) -> bool:
    """Whether the archive's memory diff adds ``line`` to ``uri`` (an update's "after" holds the
    whole file: the line counts only when its "before" did not hold it)."""
    diff = _json(store, archive, "memory_diff.json")
    operations = diff.get("operations") if isinstance(diff, dict) else None
    if not isinstance(operations, dict):
        return False
    wanted = _plain(line)
    for op in (*_listed(operations.get("adds")), *_listed(operations.get("updates"))):
        if not isinstance(op, dict) or not _same_uri(store, op.get("uri"), uri):
            continue
        after, before = op.get("after"), op.get("before")
        if _holds(after, wanted) and not _holds(before, wanted):
            return True
    return False


def _says(store: Store, archive: str, words: list[str]) -> bool:
    """Whether the archive's messages hold each of ``words``, by stem."""
    from ov.sessions.messages import message_text

    try:
        raw = store.path(store.uri(archive).child("messages.jsonl")).read_text(encoding="utf-8", errors="replace")
    except (InvalidInput, OSError):
        return False
    said: set[str] = set()
    for record in raw.splitlines():
        try:
            message = json.loads(record)
        except ValueError:
            continue
        if isinstance(message, dict):
            said.update(w.strip(".-'").lower() for w in _WORD_RE.findall(message_text(message)))
    return all(_said(word, said) for word in words)


def _said(word: str, said: set[str]) -> bool:
    if word in said:
        return True
    if len(word) <= _STEM:
        return False  # "vim" is not "vimrc"
    stem = word[: max(_STEM, len(word) - 2)]
    return any(w.startswith(stem) for w in said)


def _json(store: Store, archive: str, name: str) -> object:
    try:
        return json.loads(store.path(store.uri(archive).child(name)).read_bytes())
    except (InvalidInput, OSError, ValueError):
        return None


def _listed(value: object) -> list:
    return value if isinstance(value, list) else []


def _same_uri(store: Store, text: object, uri: VikingURI) -> bool:
    try:
        return isinstance(text, str) and store.uri(text) == uri
    except InvalidInput:
        return False


def _plain(line: str) -> str:
    return " ".join(re.sub(r"^\s*[-*+]\s+", "", line).split()).casefold()


def _holds(text: object, wanted: str) -> bool:
    return isinstance(text, str) and any(_plain(line) == wanted for line in text.splitlines())
