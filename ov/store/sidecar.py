"""Directory sidecars: L0 ``.abstract.md`` and L1 ``.overview.md``.

A sidecar is Markdown with optional YAML frontmatter (the OpenViking "OKF"
shape): ``directory`` (the directory's URI, ending in ``/``), ``source``,
``generated_by`` and ``freshness``. Readers that only want the body (``ov
abstract``, ``ov ls``) split the frontmatter off without parsing YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ov.errors import InvalidInput
from ov.files import clean_generated_text

ABSTRACT = ".abstract.md"
OVERVIEW = ".overview.md"
SIDECARS = (ABSTRACT, OVERVIEW)
# A session's messages, live or archived.
MESSAGES = "messages.jsonl"
# Where `ov commit` archives a session: sessions/{sid}/history/archive_NNN.
HISTORY = "history"
ARCHIVE_PREFIX = "archive_"
# Every message id a session's commits archived, one line per archive (ov.sessions.session).
ARCHIVED_IDS = ".archived_ids.jsonl"
# What add-resource records of an import (its source, reason and files).
MANIFEST = ".sources.json"
# What makes a folder below sessions/ a session (ov.sessions.session).
SESSION_META = ".meta.json"
# The files of a session folder and its archives that `ov session add` and `ov commit` write.
SESSION_RECORDS = frozenset({MESSAGES, SESSION_META, "memory_diff.json", ".done", ".failed.json", ARCHIVED_IDS})
# ov's own files that describe content rather than being content (not indexed as content).
BOOKKEEPING = (SESSION_RECORDS - {MESSAGES}) | {MANIFEST, ".relations.json"}
ABSTRACT_MAX_CHARS = 256
OVERVIEW_MAX_CHARS = 4000
KNOWN_FIELDS = ("directory", "source", "generated_by", "freshness")

_FENCE = "---"


def is_session_log(rel: str) -> bool:
    """Whether ``rel`` (a path in an account) is a session's message log, live or archived: the hooks
    append every captured turn to it, so ov writes it past ``store.max_file_bytes`` itself (a pull
    says nothing of its size)."""
    *folder, name = rel.split("/")
    return is_live_log(rel) or (name == MESSAGES and is_session_archive(folder))


def is_live_log(rel: str) -> bool:
    """Whether ``rel`` is a session's live log (``sessions/<id>/messages.jsonl``): what was said
    since its last commit, in a conversation going on or one its host never ended."""
    *folder, name = rel.split("/")
    return name == MESSAGES and len(folder) >= 2 and folder[-2] == "sessions"


def removed_sessions(changes: Mapping[str, bytes | None]) -> list[tuple[str, str]]:
    """``(user, session id)`` of each session that ``changes`` (path -> content, None: deleted)
    remove: those whose ``user/U/sessions/S/.meta.json`` they delete."""
    out = []
    for path, data in changes.items():
        if data is None and path.endswith(SESSION_META):
            parts = path.split("/")
            if len(parts) == 5 and parts[0] == "user" and parts[2] == "sessions" and parts[4] == SESSION_META:
                out.append((parts[1], parts[3]))
    return out


def is_session_archive(parts: list[str] | tuple[str, ...]) -> bool:
    """Whether a folder's path parts end in ``sessions/{sid}/history/archive_NNN``."""
    return len(parts) >= 4 and parts[-4] == "sessions" and parts[-2] == HISTORY and parts[-1].startswith(ARCHIVE_PREFIX)


def split(text: str) -> tuple[str | None, str]:
    """(frontmatter text or None, body). Raises InvalidInput for an unclosed fence."""
    if not (text.startswith(_FENCE + "\n") or text.startswith(_FENCE + "\r\n")):
        return None, text
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == _FENCE:
            front = "".join(lines[1:i])
            body = "".join(lines[i + 1 :])
            return front, body.lstrip("\r\n")
    raise InvalidInput("sidecar frontmatter starts with '---' but is never closed")


def body(text: str) -> str:
    """The visible body of a sidecar, frontmatter removed, surrounding blank lines trimmed."""
    return split(text)[1].strip()


def parse(text: str) -> tuple[dict[str, Any], str]:
    """(metadata, body); malformed frontmatter raises InvalidInput."""
    import yaml  # Deferred: only sidecar writes and validation parse YAML.

    front, rest = split(text)
    if front is None:
        return {}, rest.strip()
    try:
        meta = yaml.safe_load(front) or {}
    except yaml.YAMLError as exc:
        raise InvalidInput(f"sidecar frontmatter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise InvalidInput("sidecar frontmatter must be a mapping")
    directory = meta.get("directory")
    if directory is not None and not isinstance(directory, str):
        raise InvalidInput("sidecar field 'directory' must be a string")
    return meta, rest.strip()


def check_length(name: str, body: str, *, what: str = "this one") -> None:
    """Refuse a body longer than the layer ``name`` holds (L0 256, L1 4000 characters)."""
    limit, layer = (ABSTRACT_MAX_CHARS, "an abstract (L0)") if name == ABSTRACT else (OVERVIEW_MAX_CHARS, "an overview (L1)")
    if len(body) > limit:
        raise InvalidInput(
            f"{layer} holds at most {limit} characters; {what} has {len(body)}",
            hint="shorten it; longer text belongs in the directory's .overview.md (L1)" if name == ABSTRACT else "shorten it; the files themselves hold the detail",
        )


def render(meta: dict[str, Any], text: str) -> str:
    """Frontmatter (known fields first, in their usual order) and body."""
    import yaml

    ordered = {k: meta[k] for k in KNOWN_FIELDS if k in meta}
    ordered.update({k: v for k, v in meta.items() if k not in ordered})
    # libyaml's emitter when present: ingest renders two sidecars per directory.
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    front = yaml.dump(ordered, Dumper=dumper, sort_keys=False, allow_unicode=True) if ordered else ""
    out = f"{_FENCE}\n{front}{_FENCE}\n\n" if front else ""
    # Summaries are made from what users and models said; a NUL would make the sidecar binary data.
    return out + clean_generated_text(text).strip() + "\n"


def by_hand(data: bytes, trigger: str) -> bytes:
    """A sidecar's bytes as a person's edit or write leaves them: one that says a program made it
    (``generated_by`` other than ov's own commands) says ov's ``trigger`` instead, so that nothing
    that regenerates what it generated (rm and mv above a folder, add-resource) takes the edit for
    its own. Anything else, or what does not parse, is returned unchanged."""
    try:
        meta, text = parse(data.decode("utf-8"))
    except (UnicodeDecodeError, InvalidInput):
        return data
    made = meta.get("generated_by")
    if not isinstance(made, dict) or made.get("component") == "ov":
        return data
    meta["generated_by"] = {"component": "ov", "trigger": trigger}
    return render(meta, text).encode("utf-8")


def directory_uri(uri: str) -> str:
    return uri if uri.endswith("/") else uri + "/"


def retarget(data: bytes, directory: str | None) -> bytes:
    """A sidecar's bytes with its ``directory`` field pointing at ``directory`` (a moved or imported
    directory's URI); anything that does not parse, or has no such field, is returned unchanged."""
    try:
        meta, text = parse(data.decode("utf-8"))
    except (UnicodeDecodeError, InvalidInput):
        return data
    if "directory" not in meta or directory is None:
        return data
    meta["directory"] = directory_uri(directory)
    return render(meta, text).encode("utf-8")
