"""Which ``.ov.bak`` is ov's own, and what a backup says of the file before ov.

A backup that holds nothing but the file an uninstall gives back and ov's own entries goes with
that uninstall; one that holds anything else stays.

ov keeps the file as it was before its first write (:func:`ov.hosts.receipts.apply`), and an
uninstall that gives that file back takes the backup away. Older ovs rewrote the backup at every
install: a re-install, or the MCP server joining the hooks in Gemini's settings.json, left a
backup holding ov's own hooks or server, which never equalled the file given back, so it stayed
for good, with ov's entries in it. Such a backup is recognised by taking ov's entries out of it
as an uninstall takes them out of the file (:func:`ov.hosts.hookentries.remove_ours`,
:func:`ov.hosts.ovcommand.is_our_server`), and comparing bytes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ov.errors import InvalidInput
from ov.hosts.filechange import given_back, parse
from ov.hosts.hookentries import remove_ours
from ov.hosts.hostconfig import Spec
from ov.hosts.mcpentries import mcp_entry
from ov.hosts.ovcommand import is_our_server
from ov.hosts.receipts import BACKUP_SUFFIX, backup_path


def only_ours_added(spec_: Spec, backup: bytes, restored: bytes | None, receipt: dict) -> bool:
    """Whether ``backup`` is ``restored`` (the file the uninstall gives back, ``receipt`` the
    receipt it undid; None: it removes the file, which ov made) with ov's own hook handlers and
    server added, and nothing else (with what ``receipt`` says ov created, when ov made the file).

    A list or object that only ov's entries filled goes with them: whether ov made it cannot be
    told any more (an older ov's receipt of it is gone), and when the user had one the bytes
    differ and the backup stays. A file ov cannot read, or edits as TOML, keeps its backup."""
    if spec_.shape not in ("nested", "flat", "mcp-json"):
        return False
    hooks_shape = _hooks_shape(spec_)
    server, _entry = mcp_entry(spec_.host, [])
    try:
        doc = parse(spec_, backup)
        hooks = doc.get(("hooks",))
        containers = [("hooks", native) for native in (hooks if isinstance(hooks, dict) else {})] + [("hooks",), server[:-1]]
        filled = [path for path in containers if doc.get(path) not in (None, {}, [])]
        remove_ours(doc, hooks_shape)
        if is_our_server(doc.get(server)):
            doc.remove(server)
        for path in filled:  # deepest first: an event's list before `hooks`
            if doc.get(path) in ({}, []):
                doc.remove(path)
        if restored is None:
            for path in sorted((tuple(p) for p in receipt.get("created", [])), key=len, reverse=True):
                # As the uninstall takes them out: a list or object once empty, a value (Cursor's "version") always.
                if path in doc and (doc.get(path) in ({}, []) or not isinstance(doc.get(path), (dict, list))):
                    doc.remove(path)
    except InvalidInput:
        return False
    if restored is None:
        return doc.value() == {}
    return given_back(spec_, doc, receipt) == restored


# --- what ov's own entries filled -------------------------------------------------------------------
#
# An uninstall takes out what its receipt says ov created. A receipt written when ov's entries
# were already in the file (ov's home removed, then installed again: "unchanged") says it created
# nothing, and the uninstall left the lists and objects ov's entries had filled, empty, and the
# file ov had made. So a list or object that only ov's entries filled goes too, unless the file as
# it was before ov (its backup) had it: then it was the user's, empty before ov added to it.


def filled(doc, spec_: Spec) -> list[tuple[str, ...]]:
    """The lists and objects of ``doc`` that ov's entries go into, as they hold something now:
    each event's list and ``hooks`` (a hooks file), the servers' object (an MCP file)."""
    if spec_.kind == "mcp":
        server, _entry = mcp_entry(spec_.host, [])
        paths = [server[:-1]]
    else:
        hooks = doc.get(("hooks",))
        paths = [("hooks", native) for native in (hooks if isinstance(hooks, dict) else {})] + [("hooks",)]
    return [path for path in paths if doc.get(path) not in (None, {}, [])]


def drop_emptied(doc, spec_: Spec, paths: list[tuple[str, ...]], before) -> None:
    """Take out of ``doc`` each of ``paths`` (:func:`filled` before ov's entries went) that is
    empty now, unless ``before`` (:func:`before_ov`) had it; then Cursor's ``version``, which ov
    adds beside the ``hooks`` it makes, when that went and ``before`` had no ``version``."""
    gone = False
    for path in sorted(paths, key=len, reverse=True):  # an event's list before `hooks`
        if doc.get(path) in ({}, []) and (before is None or path not in before):
            doc.remove(path)
            gone = gone or path == ("hooks",)
    if gone and spec_.shape == "flat" and doc.get(("version",)) == 1 and (before is None or ("version",) not in before):
        doc.remove(("version",))


def before_ov(spec_: Spec, receipts_dir: Path):
    """The file as it was before ov's first write, parsed, when its backup can say (None when not):
    there is one, it parses, and it holds no entry of ov's (an older ov rewrote its backup after
    its entries were in, and what it says was the user's is not to be told from what was ov's)."""
    backup = next(_backups(spec_, receipts_dir), None)
    if backup is None or spec_.shape not in ("nested", "flat", "mcp-json"):
        return None
    server, _entry = mcp_entry(spec_.host, [])
    try:
        doc = parse(spec_, backup.read_bytes())
        probe = parse(spec_, doc.text().encode("utf-8"))
        remove_ours(probe, _hooks_shape(spec_))
    except (OSError, InvalidInput):
        return None
    return doc if probe.text() == doc.text() and not is_our_server(doc.get(server)) else None


def as_backed_up(spec_: Spec, receipts_dir: Path, after: bytes | None) -> bytes | None:
    """What an uninstall writes: ``after``, or the file as it was before ov's first write where
    ``after`` differs from it only in an empty container the user wrote with whitespace inside
    (``"Stop": [ ]``), which the in-place editor gives back as ``[]`` once ov's entries are out
    (:func:`ov.hosts.jsonc.collapse_empty`). Then the file comes back byte for byte, and its
    backup, the same bytes, goes."""
    if after is None or spec_.shape not in ("nested", "flat", "mcp-json"):
        return after
    from ov.hosts.jsonc import collapse_empty

    for backup in _backups(spec_, receipts_dir):
        try:
            data = backup.read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if data != after and collapse_empty(text).encode("utf-8") == after:
            return data
    return after


def has_backup(spec_: Spec, receipts_dir: Path) -> bool:
    """Whether the file before ov's first write is kept: when it is not, ov made the file (a
    file ov found keeps its backup until the uninstall gives it back)."""
    return any(True for _ in _backups(spec_, receipts_dir))


def _backups(spec_: Spec, receipts_dir: Path):
    """The backup of ``spec_``'s file where ov keeps it (a project's beside the receipt of whichever
    of ov's entries wrote the file first: Gemini's settings.json holds the hooks and the server), or
    where an earlier build kept a project's."""
    kept = [backup_path(replace(spec_, kind=kind), receipts_dir) for kind in dict.fromkeys((spec_.kind, "hooks", "mcp"))]
    for path in dict.fromkeys((*kept, spec_.path.with_name(spec_.path.name + BACKUP_SUFFIX))):
        if path.is_file():
            yield path


def _hooks_shape(spec_: Spec) -> Spec:
    """How hooks sit in ``spec_``'s file, whichever of ov's entries the spec is about (Gemini's
    settings.json holds both)."""
    return spec_ if spec_.kind == "hooks" else replace(spec_, shape="flat" if spec_.host == "cursor" else "nested")
