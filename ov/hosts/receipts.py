"""Writing a planned :class:`~ov.hosts.filechange.Change`: the host's file, its backup, and the
receipt that lets the uninstall undo exactly what ov did.

* **Writes are atomic**, and the file before ov's first write is kept beside it as ``<file>.ov.bak``
  (a project's, beside its receipt in ov's home: :func:`backup_path`).
* **A receipt** (``$OV_HOME/installs/<host>-<kind>-<scope>-<digest>.json``) records the file,
  what ov created (the file itself, the ``hooks`` key, an event's list, folders), the command
  installed, and the trust ``--trust`` recorded in the host's own config (Codex's reviews and
  project trust). Uninstall removes ov's entries and then only what the receipt says ov created,
  so a file ov only added to comes back byte for byte. An older ov's receipt of hooks
  (``<host>-<scope>-<digest>.json``) is read as such, and renamed under the lock
  (:func:`adopt_old_receipts`).
* **Two receipts of one file or folder** (Gemini's hooks and server share settings.json, Codex's
  hooks.json and config.toml share .codex/): whichever uninstall comes last gives the file back
  and removes the folders, because the first hands over what its receipt said.
* **The trust outlives the receipt**: an uninstall without ``--trust`` leaves in Codex's config
  what ``--trust`` wrote there, and keeps its record in a receipt of its own
  (``<host>-kept-trust-<scope>-<digest>.json``, :func:`kept_trust`), so that a later uninstall
  with ``--trust`` can still take exactly that out.
* **One install at a time** (:func:`install_lock`): an uninstall that removes the folder of
  receipts once it is empty would otherwise remove it under an install that has just made it.
* **The backup goes** with the uninstall that gives the file back as it holds it, or as it holds
  it but for ov's own entries (an older ov's, :mod:`ov.hosts.backups`); the folder of receipts
  goes with the last one. A file removed by hand (:func:`file_gone`) loses its receipt, not its backup.
* **Killed at any step**, the next install or uninstall finishes the job: an install writes the
  backup, the receipt (a new file's marked unwritten), the file, then a new file's receipt
  unmarked; an uninstall gives the file back, removes the folders ov made, its receipt, and only
  then the backups, so a receipt never outlives the backup it would have the next install keep.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from ov.files import atomic_write, file_lock, remove_stale_replacements
from ov.home import Home
from ov.hosts.filechange import Change
from ov.hosts.hostconfig import Spec

BACKUP_SUFFIX = ".ov.bak"
LOCK_NAME = "installs.lock"  # in ov's home, beside the folder of receipts (which goes when empty)
# An atomic write's temporary file in a host's folder older than this is a killed install's: the
# lock keeps other installs out, and a minute keeps clear of any other writer of ov's there.
STALE_TEMP_AGE = 60.0  # seconds
LOCK_TIMEOUT = 30.0  # seconds: an install runs `codex app-server` for --trust, which may take a while
_KEPT_TRUST = "kept-trust"  # the kind of the receipt that keeps what --trust wrote past an uninstall
# A receipt's mark while the new file it names is not written yet (:func:`apply`): left by an install
# killed before the file, it tells the uninstall that nothing was ever there (:func:`never_written`).
UNWRITTEN = "file_unwritten"
# ov before its MCP server (a6ed0ff) named a receipt without its kind: every one was of hooks.
_OLD_NAME = re.compile(r"(?P<host>[a-z]+)-(?P<scope>user|project)-(?P<digest>[0-9a-f]{10})\.json")


@contextmanager
def install_lock(receipts_dir: Path, timeout: float | None = None) -> Iterator[None]:
    """Held while an install or an uninstall reads the receipts and writes files and receipts.
    The lock file sits beside ``receipts_dir``, not in it: the folder goes as the lock is let go,
    once nothing is left in it (the last uninstall's receipt gone).
    Raises :class:`~ov.errors.StoreLocked` when another holds it past ``timeout`` seconds
    (:data:`LOCK_TIMEOUT` unless given)."""
    Home(receipts_dir.parent).ensure()  # the home (where receipts_dir is), perhaps made by this
    path = receipts_dir.parent / LOCK_NAME
    busy = f"another ov install or uninstall is running (it holds {path})"
    with file_lock(path, LOCK_TIMEOUT if timeout is None else timeout, busy, "try again once it is done"):
        # What an install or uninstall killed mid-write left: under the lock no other is writing here.
        remove_stale_replacements(receipts_dir)
        adopt_old_receipts(receipts_dir)
        try:
            yield
        finally:
            try:
                # The last receipt gone, or none written (an install killed before its first one):
                # nothing of ov's install is left in its home.
                receipts_dir.rmdir()
            except OSError:
                pass  # a receipt or a project's backup is still in it (or it never existed)


def apply(change: Change, receipts_dir: Path) -> None:
    """Write the file (atomically, the file before ov's first write kept at :func:`backup_path`)
    and its receipt: an install writes the backup, then the receipt, then the file, so that one
    killed on the way leaves nothing of ov's in the file that no receipt records.

    An uninstall that gives the file back as it was before the install also takes the backup
    and the folders the install made away: nothing of ov's is left in the host's config. One
    that leaves the file to another receipt of ov's hands these over to it (:func:`_hand_over_file`).
    """
    path = change.spec.path
    backup = backup_path(change.spec, receipts_dir)
    if change.receipt is not None:
        # An install may be the first thing ov writes: the home (where receipts_dir is) made private.
        Home(receipts_dir.parent).ensure(receipts_dir)
    # A settings file linked from a dotfiles folder: the file the link names is the one to change
    # (replacing the link by a file would cut it off from the user's dotfiles), and to remove when
    # ov made it (a link to a file not made yet stays the dangling link it was).
    target = path.resolve() if path.is_symlink() else path
    # A copy of the user's file that a killed install or uninstall left beside it (atomic_write's
    # temporary file): nothing else would ever remove it. Beside a file an install was killed
    # before writing (killed at its rename, say), whatever its age: the uninstall that drops the
    # receipt is the last to know of it, and under the lock no write of ov's owns it.
    unwritten = change.receipt is None and never_written(change.spec_receipt or {})
    for folder in dict.fromkeys((target.parent, backup.parent)):
        if folder != receipts_dir:
            remove_stale_replacements(folder, 0.0 if unwritten and folder == target.parent else STALE_TEMP_AGE)
    receipt_path = _receipt_path(receipts_dir, change.spec)
    receipt_written = False
    spent: list[Path] = []  # the backups an uninstall gives back: removed after its receipt
    if change.changed:
        if change.after is None:
            _unlink(target)  # gone already when the hooks' uninstall of the same file took it (Gemini)
        else:
            made = _missing_parents(target)
            # The backup is the file before ov's first write: a re-install (from another ov, say),
            # or the server joining the hooks in one file, keeps it.
            if change.before is not None and change.receipt is not None and not _held(receipts_dir, change.spec):
                backup.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(backup, change.before, mode=0o600)
            if change.receipt is not None and made:
                change.receipt["created_dirs"] = list(dict.fromkeys([*change.receipt.get("created_dirs", []), *map(str, made)]))
            # Every receipt whose entries the bytes hold: this change's, and its riders' (Gemini's
            # server, written with the hooks), each before the file.
            claims = [(_receipt_path(receipts_dir, c.spec), c.receipt) for c in (change, *change.riders) if c.receipt is not None]
            new_file = change.before is None
            # The receipt before the file, the backup before the receipt: an install killed in
            # between leaves a receipt of what it was about to write, which a re-install keeps
            # and an uninstall undoes, never ov's entries in a file no receipt claims. A new
            # file's receipt says it is not written yet until it is: killed in between, the
            # uninstall tells an install that never finished from a file removed by hand.
            for claim_path, claim in claims:
                _write_receipt(claim_path, {**claim, UNWRITTEN: True} if new_file else claim)
            receipt_written = change.receipt is not None
            target.parent.mkdir(parents=True, exist_ok=True)
            # A file that exists keeps its permissions (atomic_write); a new one is the user's
            # alone, unless a plugin that the host reads as a package.
            atomic_write(target, change.after, mode=0o644 if change.spec.shape == "plugin" else 0o600)
            if new_file:
                for claim_path, claim in claims:
                    _write_receipt(claim_path, claim)
    # An uninstall undoes the receipt as it is now: one earlier in the same run may have handed it
    # a folder (`--with-mcp`: Codex's hooks.json went, and config.toml's receipt took .codex/).
    undone = with_file_facts(change.spec_receipt, read_receipt(receipts_dir, change.spec) or {}) if change.receipt is None else {}
    heir = _heir(receipts_dir, change.spec) if change.receipt is None and change.after is not None else None
    if heir is not None:
        _hand_over_file(receipts_dir, change.spec, undone, *heir)
    elif change.receipt is None:  # an uninstall, and no other receipt of ov's holds the file
        # A backup goes when the uninstall gives the file back as it holds it. One of a file
        # removed by hand stays: the file as the user had it before ov, held nowhere else; so does
        # one beside a file that ov made again after that removal, which the uninstall removes.
        # Which backups go is decided now; they go once the receipt has (see below).
        if _given_back(change, backup, undone):
            spent.append(backup)
        else:
            change.notes.extend(_kept_backup_note(change, backup))
        beside = path.with_name(path.name + BACKUP_SUFFIX)  # where earlier builds kept a project's too
        if beside != backup and _given_back(change, beside, undone):
            spent.append(beside)
        if change.after is None:
            for folder in sorted((Path(p) for p in undone["created_dirs"]), key=lambda p: len(p.parts), reverse=True):
                try:
                    folder.rmdir()  # only when empty: whatever else is in it stays
                except OSError:
                    _hand_over_folder(receipts_dir, change.spec, folder)
    if change.trust_kept is not None:
        _keep_trust(receipts_dir, *change.trust_kept)
    if change.receipt is None:
        # The receipt goes before the backups: an uninstall killed in between leaves a backup of
        # the file as given back, which the next install writes again and the next uninstall
        # removes (it is that file). The other way round, the receipt left would make the next
        # install keep a backup that is no longer there: none would be kept at all.
        _unlink(receipt_path)
        for spent_backup in spent:
            _unlink(spent_backup)
    elif not receipt_written:
        _write_receipt(receipt_path, change.receipt)


def notes_of_apply(change: Change, receipts_dir: Path) -> list[str]:
    """What :func:`apply` would add to ``change``'s notes, said without writing: a dry run says
    all that the run would (the backup an uninstall leaves beside a file it removes)."""
    if change.receipt is not None or change.after is not None:
        return []  # an install, or an uninstall that leaves a file: the backup goes, or another receipt takes it
    backup = backup_path(change.spec, receipts_dir)
    undone = with_file_facts(change.spec_receipt, read_receipt(receipts_dir, change.spec) or {})
    return [] if _given_back(change, backup, undone) else _kept_backup_note(change, backup)


def _kept_backup_note(change: Change, backup: Path) -> list[str]:
    """The note of an uninstall that removes a file it does not give back as its backup holds it
    (a file ov made again after the user's was removed by hand): the backup stays, and where."""
    if change.after is None and change.before is not None and backup.is_file():
        return [f"{change.spec.host:8} {backup} keeps the file as it was before ov's first write"]
    return []


def file_gone(spec_: Spec, receipt: dict | None, receipts_dir: Path) -> Change:
    """The uninstall from ``spec_``'s file when there is no such file: nothing to write. When
    ``receipt`` says ov installed there, the receipt goes, with the folders ov made that are empty
    now, and a note says why there is nothing to give back: the file was removed since (by hand),
    or it never was there (:func:`never_written`: an install killed before it wrote the file). A
    backup of the file as it was before ov stays, and the note says where."""
    if receipt is None:
        return Change(spec_, None, None, None)
    if never_written(receipt):
        note = f"{spec_.host:8} {spec_.path} was never written: an install stopped before it wrote the file, so there is nothing to give back, and ov drops its receipt"
        action = "never written"
    else:
        note = f"{spec_.host:8} {spec_.path} no longer exists: nothing to take out of it, and ov forgets its install there"
        action = "already gone"
    backup = backup_path(spec_, receipts_dir)
    if backup.is_file():
        note += f" ({backup} keeps the file as it was before ov's first write)"
    return Change(spec_, None, None, None, [note], spec_receipt=receipt, action=action, forgotten=True)


def never_written(receipt: dict) -> bool:
    """Whether ``receipt`` is that of an install that stopped before it wrote the new file it names."""
    return receipt.get(UNWRITTEN) is True


def backup_path(spec_: Spec, receipts_dir: Path) -> Path:
    """Where the file as it was before ov's last write is kept: beside it (``<file>.ov.bak``) in
    user scope; for a project, whose files a team commits, beside the receipt in ov's home, so that
    no copy of ov's making lands in the project (``git add -A`` would take it)."""
    if spec_.scope == "project":
        return _receipt_path(receipts_dir, spec_).with_suffix(".bak")
    return spec_.path.with_name(spec_.path.name + BACKUP_SUFFIX)


def read_receipt(receipts_dir: Path, spec_: Spec) -> dict | None:
    """The receipt of ov's install into ``spec_``'s file, or None when there is none (or it is
    unreadable). One an older ov wrote under its old name (:func:`adopt_old_receipts`) is read
    too: a dry run or ``ov doctor``, which take no lock and so adopt nothing, see it as the run will."""
    path = _receipt_path(receipts_dir, spec_)
    if spec_.kind == "hooks" and not path.exists():
        old = _read_json(_old_receipt_path(receipts_dir, spec_))
        return {**old, "kind": "hooks"} if old is not None else None
    return _read_json(path)


def made_folders(receipts_dir: Path) -> set[Path]:
    """The folders ov made for the files of its installs, as their receipts say (``created_dirs``)."""
    made: set[Path] = set()
    for path in receipts_dir.glob("*.json"):
        receipt = _read_json(path) or {}
        dirs = receipt.get("created_dirs")
        made.update(Path(d) for d in (dirs if isinstance(dirs, list) else []) if isinstance(d, str))
    return made


def adopt_old_receipts(receipts_dir: Path) -> None:
    """Give each receipt an ov before a6ed0ff wrote (``<host>-<scope>-<digest>.json``, all of hooks)
    today's name, so that uninstall and re-install undo and keep what that install made (the file,
    its folders, the ``hooks`` key). Called under :func:`install_lock`. The receipt under the new
    name is written before the old one goes: killed in between, the next call merges the two again,
    which changes nothing (a receipt under both names is otherwise an old ov's install over this
    one's: what either says ov made, ov made)."""
    for old_path in sorted(receipts_dir.glob("*.json")):
        match = _OLD_NAME.fullmatch(old_path.name)
        old = _read_json(old_path) if match else None
        if old is None:
            continue  # today's name, or a file no ov could read: left as it is
        new_path = receipts_dir / f"{match['host']}-hooks-{match['scope']}-{match['digest']}.json"
        new = _read_json(new_path)
        if new is None:
            adopted = {**old, "kind": "hooks"}
        else:
            adopted = with_file_facts(new, old)
            adopted["created"] = _unique([*new.get("created", []), *old.get("created", [])])
            adopted["installed_at"] = min((str(r["installed_at"]) for r in (new, old) if r.get("installed_at")), default=_now())
        _write_receipt(new_path, adopted)
        _unlink(old_path)


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def new_receipt(spec_: Spec, old: dict, new_file: bool, created: list[list[str]], command: list[str], valueless: str | None = None, **extra) -> dict:
    """The receipt of an install: what ov wrote where, and what it created and trusted (kept from ``old``)."""
    return {
        "host": spec_.host,
        "scope": spec_.scope,
        "kind": spec_.kind,
        "file": str(spec_.path),
        "created_file": True if new_file else old.get("created_file", False),
        "created": _unique(created),
        "command": command,
        **({"valueless": valueless} if valueless is not None else {}),
        # What an earlier --trust recorded stays in the host's config over a re-install, and so here.
        **({"trust": old["trust"]} if isinstance(old.get("trust"), dict) else {}),
        **extra,
        "created_dirs": old.get("created_dirs", []),
        "installed_at": old.get("installed_at") or _now(),
        "updated_at": _now(),
    }


def record_trust(
    receipts_dir: Path, spec_: Spec, *, reviews: dict[str, str] | None = None, project: str | None = None, made_config: bool = False, made_state: bool = False
) -> None:
    """Add to ``spec_``'s receipt the trust ov has just written into the host's own config: review
    keys with the hash each was given, the project it marked trusted, (``made_config``) that the
    config file did not exist before, and (``made_state``) that it held no ``hooks.state`` table,
    which Codex makes for the reviews. What an uninstall with ``--trust`` may take out again, and
    nothing else (the user's own trust is never recorded)."""
    receipt = read_receipt(receipts_dir, spec_)
    if receipt is None or not (reviews or project):
        return
    trust = receipt.get("trust") if isinstance(receipt.get("trust"), dict) else {}
    known = trust.get("reviews") if isinstance(trust.get("reviews"), dict) else {}
    if reviews and (made_state or trust.get("created_state") or (not known and "created_state" not in trust)):
        # Said by ov's first reviews of the file. A record an older ov wrote says nothing of it,
        # and keeps saying nothing: the uninstall then takes the table for Codex's making.
        trust["created_state"] = made_state or bool(trust.get("created_state"))
    trust = {**trust, "reviews": {**known, **(reviews or {})}}
    if project:
        trust["project"] = project
    if made_config or trust.get("created_config"):
        trust["created_config"] = True
    receipt["trust"] = trust
    _write_receipt(_receipt_path(receipts_dir, spec_), receipt)


def kept_trust(receipts_dir: Path, spec_: Spec) -> dict:
    """What ``--trust`` wrote for ``spec_``'s hooks file that an uninstall without ``--trust``
    left in the host's config, as the hooks' receipt recorded it ({} when there is none)."""
    receipt = read_receipt(receipts_dir, replace(spec_, kind=_KEPT_TRUST))
    trust = receipt.get("trust") if receipt is not None else None
    return trust if isinstance(trust, dict) else {}


def merged_trust(one: dict, other: dict) -> dict:
    """Two records of the trust ``--trust`` wrote for one hooks file, as one."""
    reviews = {key: value for record in (one, other) if isinstance(record.get("reviews"), dict) for key, value in record["reviews"].items()}
    merged = {**one, **other, "reviews": reviews}
    for made in ("created_config", "created_state"):
        if one.get(made) or other.get(made):
            merged[made] = True
    if not isinstance(other.get("project"), str) and isinstance(one.get("project"), str):
        merged["project"] = one["project"]
    return merged


def _keep_trust(receipts_dir: Path, spec_: Spec, trust: dict | None) -> None:
    """Keep (``trust``) or drop (None) the record of the trust written for ``spec_``'s hooks file.
    It names the hooks file under a key of its own (``hooks_file``), so no receipt of a file takes
    it for a receipt of the same file (:func:`_heir`)."""
    path = _receipt_path(receipts_dir, replace(spec_, kind=_KEPT_TRUST))
    if trust is None:
        _unlink(path)
        return
    Home(receipts_dir.parent).ensure(receipts_dir)
    record = {"host": spec_.host, "scope": spec_.scope, "kind": _KEPT_TRUST, "hooks_file": str(spec_.path), "trust": trust, "updated_at": _now()}
    _write_receipt(path, record)


def with_file_facts(receipt: dict, other: dict) -> dict:
    """``receipt`` with what ``other``, a receipt of the same file, says of the file itself: that
    ov made it, the text it held when it held no value, the folders ov made for it."""
    merged = {**receipt, "created_file": bool(receipt.get("created_file") or other.get("created_file"))}
    if not isinstance(merged.get("valueless"), str) and isinstance(other.get("valueless"), str):
        merged["valueless"] = other["valueless"]
    dirs = [d for r in (receipt, other) if isinstance(r.get("created_dirs"), list) for d in r["created_dirs"]]
    merged["created_dirs"] = list(dict.fromkeys(dirs))
    return merged


def _write_receipt(path: Path, receipt: dict) -> None:
    atomic_write(path, (json.dumps(receipt, indent=2, sort_keys=True) + "\n").encode(), mode=0o600)


def _given_back(change: Change, backup: Path, undone: dict) -> bool:
    """Whether the uninstall ``change`` (which undid the receipt ``undone``) gives its file back as
    ``backup`` holds it: byte for byte, or but for ov's own entries, which an older ov's backup
    holds when it was rewritten after they went in (:func:`ov.hosts.backups.only_ours_added`); a
    file it removes (one ov made), when the backup holds nothing but ov's entries."""
    if change.before is None or not backup.is_file():
        return False  # a file removed by hand: nothing is given back
    data = backup.read_bytes()
    if data == change.after:
        return True
    # Here, not at the top: backups knows ov's entries, and their planners build on this module.
    from ov.hosts.backups import only_ours_added

    return only_ours_added(change.spec, data, change.after, undone)


def _hand_over_folder(receipts_dir: Path, spec_: Spec, folder: Path) -> None:
    """A folder ov made that another of ov's files still holds (Codex's hooks.json and config.toml
    in one .codex/): the receipt of that file takes it over, so the last uninstall removes it."""
    if not folder.is_dir():
        return
    for path, receipt in _other_receipts(receipts_dir, spec_):
        if not Path(str(receipt.get("file", ""))).is_relative_to(folder):
            continue
        dirs = receipt.get("created_dirs") if isinstance(receipt.get("created_dirs"), list) else []
        if str(folder) not in dirs:
            receipt["created_dirs"] = [*dirs, str(folder)]
            _write_receipt(path, receipt)


def _hand_over_file(receipts_dir: Path, spec_: Spec, receipt: dict, heir_path: Path, heir: dict) -> None:
    """An uninstall that leaves the file to another receipt of ov's (Gemini's hooks and server
    share settings.json): that receipt takes over what ``receipt`` said of the file itself, and
    the backup, so the last uninstall gives the file back as it was and removes the folders."""
    _write_receipt(heir_path, with_file_facts(heir, receipt))
    own, theirs = backup_path(spec_, receipts_dir), backup_path(replace(spec_, kind=str(heir.get("kind"))), receipts_dir)
    if own == theirs or not own.exists():
        return  # a user's file has one backup beside it, whichever receipt wrote it
    if theirs.exists() and str(heir.get("installed_at", "")) < str(receipt.get("installed_at", "")):
        _unlink(own)  # the older backup is the file before ov's first write
    else:
        os.replace(own, theirs)


def _other_receipts(receipts_dir: Path, spec_: Spec):
    """ov's receipts (path, receipt) other than ``spec_``'s own."""
    own = _receipt_path(receipts_dir, spec_)
    for path in sorted(receipts_dir.glob("*.json")):
        if path == own:
            continue
        try:
            receipt = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(receipt, dict):
            yield path, receipt


def _heir(receipts_dir: Path, spec_: Spec) -> tuple[Path, dict] | None:
    """Another receipt of ov's for ``spec_``'s very file, if any."""
    return next(((path, r) for path, r in _other_receipts(receipts_dir, spec_) if r.get("file") == str(spec_.path)), None)


def _held(receipts_dir: Path, spec_: Spec) -> bool:
    """Whether ov has written to ``spec_``'s file already (a receipt of either kind names it)."""
    return _receipt_path(receipts_dir, spec_).exists() or _heir(receipts_dir, spec_) is not None


def _receipt_path(receipts_dir: Path, spec_: Spec) -> Path:
    return receipts_dir / f"{spec_.host}-{spec_.kind}-{spec_.scope}-{_digest(spec_)}.json"


def _digest(spec_: Spec) -> str:
    return hashlib.sha256(str(spec_.path).encode("utf-8", "surrogateescape")).hexdigest()[:10]


def _old_receipt_path(receipts_dir: Path, spec_: Spec) -> Path:
    """Where an ov before a6ed0ff kept the receipt of its hooks in ``spec_``'s file."""
    return receipts_dir / f"{spec_.host}-{spec_.scope}-{_digest(spec_)}.json"


def _unique(paths: list[list[str]]) -> list[list[str]]:
    seen, out = set(), []
    for p in paths:
        if tuple(p) not in seen:
            seen.add(tuple(p))
            out.append(p)
    return out


def _missing_parents(path: Path) -> list[Path]:
    """The folders above ``path`` that do not exist yet, outermost first."""
    missing = []
    for parent in path.parents:
        if parent.exists():
            break
        missing.append(parent)
    return missing[::-1]


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
