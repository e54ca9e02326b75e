"""``ov snapshot revert REV``: take back what one commit changed, keeping every later change.

A restore brings whole files back to a revision, so it also undoes what later commits did to
them. A revert is git's: a **new** commit that undoes only REV's changes (below ``--uri`` when
given), each file put back as REV's parent had it, while the files REV did not touch, and the
later changes to those it did, stay. "The agent learned something wrong in that session: take
back that commit only."

Each file REV changed is judged against HEAD: still as REV left it, it goes back to what it was
before; already as it was before (reverted by hand, or this revert retried after it landed),
nothing is left to do. A file changed again since is a conflict, except where the rules that
merge two machines' versions of a file on a pull decide it: a memory file is merged line by line
(:mod:`ov.sessions.memory.sync`: the lines REV added go, the later ones stay), and a generated
summary (L0/L1) is written again, as the summaries above every file the revert changes are. Any
other conflict refuses the whole revert, naming its files, with nothing changed: the later
change is newer knowledge, which a revert must not drop without a word.

A session commit (``ov commit``) reverted takes back the memories it wrote; the session's folder
stays as it is, its messages archived (:func:`_archived_sessions`): put back live, they would be
learned again by the session's next commit. ``--uri`` naming the session reverts it as asked,
and the result says its messages are live again (``relived``).

A session commit may have merged its memories into a file the user had edited by hand
(``Ov-Hand-Edit``): the file before it is then not the parent's, but the hand edit, which the
commit's ``memory_diff.json`` holds as that memory's ``before``. Such a file has the commit's
lines taken out of it as it is now, the hand edit the other side (:func:`_without_rev`), so the
user's lines stay (``hand_edits``); where that cannot be decided it is left as it is, and the
revert says so (``kept_hand_edits``), rather than lose what the user wrote.

The plan is made without the write lock, in a draft (:class:`~ov.store.store.Draft`), and taken
as it stands under the lock unless a commit since changed one of the commit's files or a file
the draft read was edited (:func:`_still_holds`); then it is made again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ov.errors import InvalidInput, NotFound, OvError
from ov.history.snapshots import (
    RestorePlan,
    _below,
    _folders_of,
    _plan_restore,
    _session_folder,
    resolve,
    revision,
)
from ov.store.gitindex import FILE_MODE
from ov.store.sidecar import MESSAGES, SIDECARS
from ov.store.store import trailers
from ov.uri import VikingURI

_SHORT = 10


class NotRevertible(InvalidInput):
    """A revision that names a commit no revert can take back on its own: the first one, or a merge."""

    code = "not_revertible"
    hint = "`ov snapshot log` lists the commits; `ov snapshot restore REV --uri URI` brings files back to a revision"


class RevertConflict(OvError):
    """Files the commit to revert changed that later commits changed again."""

    code = "revert_conflict"
    hint = "`ov snapshot diff REV --uri URI` shows the later change; revert the other files with --uri, or restore a file whole"
    paths: tuple[str, ...] = ()

    def __init__(self, message: str, paths: list[str], *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.paths = tuple(paths)

    def to_dict(self) -> dict:
        return {**super().to_dict(), "conflicts": ["viking://" + p for p in self.paths]}


@dataclass
class RevertResult:
    """What reverting a commit wrote and deleted, what it found already undone, and its commit."""

    rev: str
    reverted: str  # the commit taken back
    subject: str  # its subject
    plan: RestorePlan
    merged: list[str] = field(default_factory=list)  # memory files merged with their later changes
    unchanged: list[str] = field(default_factory=list)  # already as before REV: nothing to undo
    # The folders of the sessions REV archived, kept as they are: their messages stay archived.
    kept_archived: list[str] = field(default_factory=list)
    # Those the revert was asked for by --uri: their archived messages become live again.
    relived: list[str] = field(default_factory=list)
    # Files the revert changes that held a hand edit REV took in (a session commit merges its
    # memories into one, ``Ov-Hand-Edit``): REV's lines taken out, the user's kept.
    hand_edits: list[str] = field(default_factory=list)
    # Those whose lines of REV could not be told from the user's: left as they are.
    kept_hand_edits: list[str] = field(default_factory=list)
    # REV's hand-edited files, by path -> the content the hand edit gave them before REV
    # (its memory_diff.json's ``before``); None when REV's records do not say it.
    hand_before: dict[str, str | None] = field(default_factory=dict)

    def done(self) -> RevertResult:
        self.hand_edits.sort()
        self.kept_hand_edits.sort()
        self.plan.sorted()
        self.merged.sort()
        self.unchanged.sort()
        return self

    def to_dict(self) -> dict:
        shown = self.plan.to_dict()  # what restore says of the same plan: its files and changes
        return {
            "rev": self.rev,
            "reverted": self.reverted,
            "reverted_subject": self.subject,
            "written": shown["written"],
            "deleted": shown["deleted"],
            "merged": ["viking://" + p for p in self.merged],
            "unchanged": ["viking://" + p for p in self.unchanged],
            "kept_archived": ["viking://" + p for p in self.kept_archived],
            "relived": ["viking://" + p for p in self.relived],
            "hand_edits": ["viking://" + p for p in self.hand_edits],
            "kept_hand_edits": ["viking://" + p for p in self.kept_hand_edits],
            "commit": shown["commit"],
            "changes": shown["changes"],
        }


def revert(store, rev: str, uri: VikingURI | None = None, *, dry_run: bool = False) -> RevertResult:
    """Undo what commit ``rev`` changed (below ``uri`` when given) as one new commit on top of
    HEAD, with the generated summaries above the files it changes written again (as a restore
    writes them). :class:`RevertConflict` when a later commit changed one of those files in a way
    no merge rule decides, :class:`NotRevertible` for the first commit and a merge; either way,
    and for a hand edit in the way, nothing is changed. ``dry_run``: the plan only.

    A session whose messages ``rev`` archived keeps its folder as it is (:func:`_archived_sessions`)
    unless ``uri`` names it or lies in it."""
    git = store.git
    rev = revision(rev)
    commit_id = resolve(store, rev)
    commit = git.repo[commit_id]
    short = commit_id.decode()[:_SHORT]
    if not commit.parents:
        raise NotRevertible(f"{rev} ({short}) is the store's first commit: there is nothing before it to go back to")
    if len(commit.parents) > 1:
        raise NotRevertible(
            f"{rev} ({short}) is a merge (a pull's): it joined two lines of history, and reverting it would take one back whole",
            hint="revert the commits it brought in one by one (`ov snapshot log` lists them), or bring files back with `ov snapshot restore REV --uri URI`",
        )
    subject = commit.message.decode("utf-8", "replace").split("\n", 1)[0]
    path = uri.path if uri is not None and not uri.is_root else ""
    before, after = _changed(git, git.repo[commit.parents[0]].tree, commit.tree, path)
    touched = sorted(before.keys() | after.keys())
    if path and not touched:
        raise NotFound(f"{rev} ({short}) changed nothing below {uri}", hint=f"`ov snapshot show {short} --stat` lists what it changed")
    asked = _session_folder(path)
    took_in = {v.removeprefix("viking://") for k, v in trailers(commit) if k == "Ov-Hand-Edit"}
    hand_before = _hand_edited_before(git, commit, took_in & set(touched)) if took_in else {}
    archived = _archived_sessions(before, after)
    kept = sorted(archived - {asked})
    touched = [p for p in touched if _session_folder(p) not in kept]

    def fresh() -> RevertResult:
        result = RevertResult(rev, commit_id.decode(), subject, RestorePlan(rev, commit_id.decode()))
        result.kept_archived, result.relived = kept, sorted(archived & {asked})
        result.hand_before = hand_before
        return result

    # A revert of a large add deletes thousands of files, each checked for a hand edit first:
    # seconds every other writer (a hook capturing a turn) would wait through, and time out in,
    # under the write lock. So it is planned in a draft, against HEAD as it is; under the lock
    # the plan is taken as it stands when no commit since changed one of REV's files (or a folder
    # where one is) and no file the draft read was edited meanwhile, else planned again.
    for attempt in range(1, PLAN_ROUNDS + 1):
        result = fresh()
        with store.draft() as draft:
            changed = _plan(store, draft, touched, before, after, result, apply=not dry_run)
            if dry_run:
                draft.require_clean_plan()  # what the revert would refuse
            if dry_run or not result.plan.changed:
                return result.done()
            draft.stage()
        try:
            with store.transaction() as tx:
                if not _still_holds(draft, tx, touched):
                    if attempt < PLAN_ROUNDS and tx.head != draft.head:
                        continue  # a commit landed meanwhile: plan again on top of it, still without the lock
                    # A hand edit the draft could not tell from a write being applied, or a store
                    # that keeps changing: planned under the lock, where the checks are the real ones.
                    result = fresh()
                    changed = _plan(store, tx, touched, before, after, result)
                else:
                    draft.hand_over(tx)
                if result.plan.changed:
                    message = f"ov snapshot revert {short}: {subject}" if subject else f"ov snapshot revert {short}"
                    result.plan.new_commit = tx.commit("snapshot revert", changed, subject=message, reverts=result.reverted).commit
        finally:
            draft.discard()
        return result.done()
    raise AssertionError("unreachable: the last round plans under the lock")  # pragma: no cover


# Plans made without the lock before one is made under it (as a session commit plans).
PLAN_ROUNDS = 3


def _plan(store, tx, touched: list[str], before: dict, after: dict, result: RevertResult, *, apply: bool = True) -> list[VikingURI]:
    """Put the revert into ``tx`` (a draft or a locked transaction) and ``result``: each of
    ``touched`` judged against ``tx``'s HEAD, then the summaries above what it changes written
    again. The URIs it changes. ``apply`` false (a dry run): the plan only."""
    wanted, now = _judge(tx, touched, before, after, result, store=apply)
    _plan_restore(tx, wanted, now, sorted(wanted), result.plan, apply=apply)
    changed = [VikingURI(tuple(p.split("/"))) for p in sorted(wanted)]
    if apply and result.plan.changed:
        from ov.ingest.resource import refresh_summaries_above

        refresh_summaries_above(store, tx, changed)
    return changed


def _still_holds(draft, tx, touched: list[str]) -> bool:
    """Whether the draft's plan holds under the lock (``tx``): no file it read edited since
    (:meth:`~ov.store.store.Draft.still_holds`), and no commit since it changed one of REV's files,
    a folder where one of them is, or a file below one of them (a folder where REV had a file):
    each of those was judged against HEAD as the draft saw it."""
    if not draft.still_holds(tx):
        return False
    if tx.head == draft.head:
        return True
    judged = set(touched)
    folders = {folder for p in touched for folder in _folders_of(p)}
    for p in tx.git.changed_paths(draft.tree, tx.tree):
        if p in judged or p in folders or any(folder in judged for folder in _folders_of(p)):
            return False
    return True


def _archived_sessions(before: dict, after: dict) -> set[str]:
    """The folders of the sessions whose messages the commit archived (an ``ov commit``: an
    archive's messages.jsonl it added). Taken back whole, such a session would have its messages
    live again, and the next ``ov commit`` would learn from them again what the revert takes
    back: an auditor undoing what an agent learned would get it learned anew. So its folder (the
    archive, the message log, the meta) is kept as it is, the record of what was said; the
    memories and other files the commit wrote are taken back."""
    out = set()
    for p in after.keys() - before.keys():
        folder = _session_folder(p)
        if folder is not None and p.startswith(folder + "/history/") and p.endswith("/" + MESSAGES):
            out.add(folder)
    return out


def _changed(git, old_tree: bytes, new_tree: bytes, path: str) -> tuple[dict[str, tuple[int, bytes]], dict[str, tuple[int, bytes]]]:
    """path -> (mode, blob id) before and after of each file the commit changed below ``path``
    (in any spelling it has there): the changed entries only, as git's diff reads two trees, not
    every file of the store."""
    spellings = {git.spelled(old_tree, path), git.spelled(new_tree, path)}
    before: dict[str, tuple[int, bytes]] = {}
    after: dict[str, tuple[int, bytes]] = {}
    for names, modes, shas in git.repo.object_store.tree_changes(old_tree, new_tree):
        for name, mode, sha, side in zip(names, modes, shas, (before, after)):
            if name is not None:
                rel = name.decode("utf-8", "surrogateescape")
                if not path or _below(rel, spellings):
                    side[rel] = (mode, sha)
    return before, after


def _judge(tx, touched: list[str], before: dict, after: dict, result: RevertResult, *, store: bool) -> tuple[dict, dict]:
    """(path -> the entry the revert puts there, path -> the entry HEAD holds) for each of the
    ``touched`` paths the revert changes; RevertConflict naming every path none of the rules
    decides. ``store``: keep a merged memory's blob in the object store (a dry run only says it)."""
    git = tx.git
    wanted: dict[str, tuple[int, bytes] | None] = {}
    now: dict[str, tuple[int, bytes]] = {}
    conflicts = []
    for p in touched:
        was, became, found = before.get(p), after.get(p), git.entry(tx.tree, p)
        if found is not None:
            now[p] = found
        if p in result.hand_before and found != was:
            taken = _without_rev(git, was, became, found, result.hand_before[p], store=store)
            if taken is None:
                result.kept_hand_edits.append(p)  # as it is: REV's lines are not told from the user's
            elif taken == found:
                result.unchanged.append(p)
            else:
                wanted[p] = taken
                result.hand_edits.append(p)
        elif found == became:
            wanted[p] = was
        elif found == was:
            result.unchanged.append(p)
        elif _summary(git, p, became, found):
            continue  # written again with the summaries above what the revert changes
        elif (merged := _merged_memory(git, p, was, became, found, store=store)) is not None:
            if merged != found:
                wanted[p] = merged
                result.merged.append(p)
            else:
                result.unchanged.append(p)
        else:
            conflicts.append(p)
    if conflicts:
        listed = ", ".join("viking://" + p for p in conflicts[:10]) + (f" (+{len(conflicts) - 10} more)" if len(conflicts) > 10 else "")
        raise RevertConflict(
            f"cannot revert {result.rev} ({result.reverted[:_SHORT]}): later commits changed {len(conflicts)} of its files again: {listed}; nothing was changed",
            conflicts,
            hint=f"see what changed since with `ov snapshot diff {result.reverted[:_SHORT]} --uri URI`; revert only the other files with"
            " --uri, or bring a file back whole with `ov snapshot restore REV --uri URI`",
        )
    # The entries left as HEAD holds them are not the revert's to change or check.
    return wanted, {p: now[p] for p in wanted if p in now}


def _summary(git, path: str, became, found) -> bool:
    """Whether ``path`` is a summary ingest generated, as REV left it and as HEAD holds it (or gone)."""
    from ov.ingest.resource import is_generated_summary

    if path.rsplit("/", 1)[-1] not in SIDECARS:
        return False
    return all(e is None or is_generated_summary(git.blob_data(e[1])) for e in (became, found))


def _merged_memory(git, path: str, was, became, found, *, store: bool) -> tuple[int, bytes] | None:
    """The entry of a memory file with REV's change taken out of HEAD's version: merged as a pull
    merges two versions (:func:`ov.sessions.memory.sync.merge_versions`), REV's version the
    common one, HEAD's one side and the one before REV the other. None for a file that is no
    memory, that REV created or removed, or that the rules cannot decide."""
    if None in (was, became, found) or not path.endswith(".md") or "memories" not in path.split("/")[:-1]:
        return None
    from ov.sessions.memory.sync import merge_versions

    try:
        base, ours, theirs = (git.blob_data(e[1]).decode("utf-8") for e in (became, found, was))
    except UnicodeDecodeError:
        return None
    merged = merge_versions(base, ours, theirs)
    if merged is None:
        return None
    return _stored(git, found[0], merged, store=store)


def _stored(git, mode: int, text: str, *, store: bool) -> tuple[int, bytes]:
    """The entry of a file holding ``text``, its blob kept in the object store with ``store``."""
    data = text.encode("utf-8")
    if store:
        from dulwich.objects import Blob

        git.repo.object_store.add_object(Blob.from_string(data))
    return mode, git.blob_id(data)


def _hand_edited_before(git, commit, paths: set[str]) -> dict[str, str | None]:
    """path -> the memory's content as the user's hand edit left it when ``commit`` (a session
    commit) read it, for each of ``paths``: the ``before`` of its update or delete in the
    ``memory_diff.json`` the commit wrote. None where no record says it, or two say it
    differently: the hand edit is not known."""
    found: dict[str, set[str]] = {p: set() for p in paths}
    parent_tree = git.repo[commit.parents[0]].tree
    for (_, new), _, (_, sha) in git.repo.object_store.tree_changes(parent_tree, commit.tree):
        if new is None or sha is None or not new.endswith(b"/memory_diff.json"):
            continue
        try:
            operations = json.loads(git.blob_data(sha)).get("operations", {})
            # A delete's text is its deleted_content (OpenViking's key); an ov before 2026-12-06 wrote it as before.
            entries = [(e, e.get("before")) for e in operations.get("updates", []) if isinstance(e, dict)]
            entries += [(e, e.get("deleted_content", e.get("before"))) for e in operations.get("deletes", []) if isinstance(e, dict)]
        except (ValueError, AttributeError, TypeError):
            continue  # a record an older ov or a hand wrote otherwise: it says nothing of these files
        for e, before in entries:
            # An update of a note moved to today's folder read its before from before_uri.
            path = str(e.get("before_uri") or e.get("uri", "")).removeprefix("viking://")
            if isinstance(before, str) and path in found:
                found[path].add(before)
    return {p: next(iter(texts)) if len(texts) == 1 else None for p, texts in found.items()}


def _without_rev(git, was, became, found, hand: str | None, *, store: bool) -> tuple[int, bytes] | None:
    """The entry of a memory file REV took a hand edit into, with REV's lines taken out of it as
    it is now (``found``) and the user's kept: a pull's merge (:func:`~ov.sessions.memory.sync.merge_versions`)
    with REV's version the common one, HEAD's one side and the hand edit (``hand``, with the
    trailer the file had before REV) the other. A file REV removed and no commit brought back
    gets the hand edit back. None when the hand edit is not known or the rules cannot decide:
    the caller leaves the file as it is."""
    if hand is None:
        return None
    from ov.sessions.memory.files import parse_memory, render_memory
    from ov.sessions.memory.sync import merge_versions

    try:
        texts = {k: git.blob_data(e[1]).decode("utf-8") if e is not None else None for k, e in (("was", was), ("became", became), ("found", found))}
        meta = next((parse_memory(texts[k])[1] for k in ("was", "became", "found") if texts[k] is not None), {})
    except (UnicodeDecodeError, InvalidInput):
        return None
    if not meta:
        return None
    before = render_memory(hand, meta)
    if texts["became"] is None:  # REV removed it: the hand edit comes back, unless a commit since made the file again
        return _stored(git, was[0] if was is not None else FILE_MODE, before, store=store) if found is None else None
    if texts["found"] is None:
        return None  # removed since REV: no later version to keep REV's lines out of
    merged = merge_versions(texts["became"], texts["found"], before)
    return None if merged is None else _stored(git, found[0], merged, store=store)
