"""``ov fsck``: do the store and its indices agree, and is anything damaged?

Read-only (but for a probe file made and removed at once). Each finding names what is wrong
and the command that fixes it. Store: ov may write to its folders, the branch resolves, every
commit of the history and its root tree is present, every tree and blob of HEAD is readable,
no interrupted commit is pending, no git lock file or temporary file of a killed writer is
left, no file of HEAD is one no backup carries (not text), no session's ``messages.jsonl`` holds a line every reader skips (not a JSON object), no commit holds a path ov never writes (``..``, ``.git``, a link: taken in by a pull before
pulls were checked, or written by an older ov), the names an older ov stored that ov no longer makes
(``"todo "``, a user ``.bob``) are named with how to rename them, so are the dated notes an older ov
made of what ``ov remember`` files elsewhere now (``ov refile`` moves them), so are the notebooks an older
ov stored as JSON (adding their source again stores them as Markdown), and so is a fold of packs
that failed on a damaged pack (packing skips those packs until they change), and hand edits are listed (they are not damage, but they are not indexed until
committed). What the next command settles by itself (an interrupted commit, a
stale lock, an index not built yet) is a note, not a problem. Indices: ``meta.json`` is readable and matches the
schema, language and embedder; the full-text index opens and holds exactly the
records HEAD yields; the vector index holds one live vector per record, and its
flat or grouped copy the same vectors.
"""

from __future__ import annotations

import stat
import time
from dataclasses import dataclass, field

from ov.progress import Progress, counting
from ov.store import treepaths
from ov.store.gitstore import JOURNAL_NAME, STALE_LOCK_SECONDS, object_damage
from ov.uri import VikingURI, hidden_ids, legacy_name
from ov.wording import counted


@dataclass(frozen=True)
class Finding:
    """One problem or note that `ov fsck` found in the store or its index."""

    area: str  # store | index
    severity: str  # problem | note
    message: str
    fix: str = ""

    def to_dict(self) -> dict:
        return {"area": self.area, "severity": self.severity, "message": self.message, "fix": self.fix}


@dataclass
class FsckReport:
    """What `ov fsck` found, and what it looked at."""

    findings: list[Finding] = field(default_factory=list)
    checked: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(f.severity == "problem" for f in self.findings)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "checked": self.checked, "findings": [f.to_dict() for f in self.findings]}


def fsck(store, progress: Progress | None = None) -> FsckReport:
    """Check the store and its index; ``progress`` is told how the walks through the history, the
    files and the index go (:mod:`ov.progress`)."""
    report = FsckReport()
    if not store.exists:
        report.findings.append(Finding("store", "note", "no store yet: nothing to check", "write something, or run `ov init`"))
        return report
    from ov.health import writable

    refused = writable.refusal(store)
    head = _check_store(store, report, refused, progress)
    if head is not None:
        _check_index(store, head, report, refused, progress)
    return report


def _check_store(store, report: FsckReport, refused, progress: Progress | None) -> str | None:
    git = store.git

    def add(finding: Finding) -> None:
        if finding not in report.findings:  # two walks of a damaged history meet the same object
            report.findings.append(finding)

    settle = "run `ov status` (any write does it too)"
    if refused is not None:
        # Every write fails, and so does an index update: a search reads the index as it is.
        add(Finding("store", "problem", refused.message, refused.hint))
    if (git.state / JOURNAL_NAME).exists():
        add(Finding("store", "note", "an interrupted commit is pending (or a write is running right now)", settle))
    now = time.time()
    for path in git.stale_files(deep=True):
        try:
            age = now - path.lstat().st_mtime
        except FileNotFoundError:
            continue
        if age >= STALE_LOCK_SECONDS or age < 0:  # dated ahead of the clock: no age to go by
            shown = path.relative_to(git.worktree / ".git")
            why = "plain git refuses to write while it is there" if path.name.endswith(".lock") else "space wasted"
            # `ov status` walks the loose object folders only after an interrupted commit: one
            # listing per folder, thousands of names in a store not packed yet.
            loose = len(path.parent.name) == 2 and path.parent.parent.name == "objects"
            fix = "ov never writes it; delete it when no git command is running" if loose else settle
            add(Finding("store", "note", f"an interrupted write left .git/{shown} ({why})", fix))
    from ov.store.packfold import failed_fold

    failed = failed_fold(git.state, git.worktree / ".git" / "objects" / "pack")
    if failed is not None:
        add(Finding("store", "problem", failed.message, failed.fix(git.worktree)))
    head = git.head()
    if head is None:
        add(Finding("store", "problem", "the branch refs/heads/main does not resolve", "restore the account from a backup"))
        return None
    commits = 0
    try:
        for entry in counting(git.repo.get_walker(include=[head]), progress, "checking commits"):
            commits += 1
            if entry.commit.tree not in git.repo.object_store:
                add(Finding("store", "problem", f"commit {entry.commit.id.decode()[:10]} has no tree", "restore the account from a backup"))
    except KeyError as exc:
        add(Finding("store", "problem", f"the history is broken: object {exc} is missing", "restore the account from a backup"))
    except object_damage() as exc:  # dulwich's error names no object
        add(Finding("store", "problem", f"the history is broken: an object of it is damaged ({exc})", "restore the account from a backup"))
    from ov.files import content_problem
    from ov.index.records import is_message_log
    from ov.sessions.messages import bad_message_lines

    files = 0
    bad_messages: list[tuple[str, int]] = []
    missing = []
    damaged = []
    legacy = []
    unpackable = []
    notes: list[tuple[str, bytes]] = []  # the memories' dated notes: an older ov's may be filed where ov no longer files them
    notebooks: list[tuple[str, bytes]] = []  # an older ov stored a notebook as its JSON
    from ov.health.archives import ArchiveRecords
    from ov.health.memories import dated_note_user

    archive_records = ArchiveRecords()
    tree = git.tree_of(head)
    for path, sha in counting(_walk(git, tree, ""), progress, "checking files"):
        files += 1
        if sha not in git.repo.object_store:
            missing.append(path)
        else:
            try:
                data = git.blob_data(sha)
            except object_damage():
                damaged.append(path)
            else:
                archive_records.see(path, data)
                problem = content_problem(data)
                if problem:
                    unpackable.append((path, problem))
                elif is_message_log(path) and (bad := bad_message_lines(data)):
                    bad_messages.append((path, bad))
                elif dated_note_user(path) is not None:
                    notes.append((path, data))
                elif path.lower().endswith(".ipynb"):
                    notebooks.append((path, data))
        why = legacy_name(path)
        if why is not None:
            legacy.append((path, why))
    from ov.health.memories import misfiled, not_text

    # Memory files on disk (a hand edit, committed or not) get the finding that says what it breaks.
    unreadable = not_text(store)
    memories = {uri.path for uri in unreadable}
    unpackable = [(path, problem) for path, problem in unpackable if path not in memories]
    for path in missing[:20]:
        add(Finding("store", "problem", f"HEAD's {treepaths.shown(path)} is missing from the object store", "restore the account from a backup"))
    for path in damaged[:20]:
        add(Finding("store", "problem", f"HEAD's {treepaths.shown(path)} is damaged in the object store", "restore the account from a backup"))
    if unpackable:
        # What no import or restore takes, so no backup either: the pack's writer refuses it.
        add(
            Finding(
                "store",
                "problem",
                f"{counted(len(unpackable), 'file')} of HEAD no import or restore takes, so no backup carries (one {unpackable[0][1]}): {_listed([p for p, _ in unpackable])}",
                "convert or remove them in the work tree, then `ov snapshot commit -m MESSAGE`",
            )
        )
    for path, bad in bad_messages[:20]:
        # Every reader skips such a line: the messages it held are in no search, recall or commit.
        add(
            Finding(
                "store",
                "problem",
                f"HEAD's {treepaths.shown(path)} has {counted(bad, 'line')} that {'is' if bad == 1 else 'are'} not a JSON object (every reader skips {'it' if bad == 1 else 'them'})",
                "fix or remove the line(s) in the work tree, then `ov snapshot commit -m MESSAGE`",
            )
        )
    report.checked.update(commits=commits, files=files)
    _check_tree_paths(git, head, add)
    if legacy:
        add(_legacy_finding(legacy))
    if misfiled_notes := misfiled(store, notes):
        add(_misfiled_finding(misfiled_notes))
    from ov.health import notebooks as notebook_check

    if behind := archive_records.behind():
        from ov.health.archives import finding

        add(Finding("store", "note", *finding(behind)))
    if as_json := notebook_check.stored_as_json(notebooks):
        add(Finding("store", "note", *notebook_check.finding(store, as_json, _listed)))
    if unreadable:
        from ov.sessions.memory.files import NOT_TEXT_FIX

        listed = ", ".join(str(uri) for uri in unreadable[:5]) + (f" and {len(unreadable) - 5} more" if len(unreadable) > 5 else "")
        what = f"{counted(len(unreadable), 'memory file')} not UTF-8 text ({listed}): `ov remember` and session commits cannot merge into them, and recall leaves them out"
        add(Finding("store", "problem", what, NOT_TEXT_FIX.replace("save it", "save each")))
    from ov.store.worktree import scan

    changes = scan(git, refresh_index=False)
    if changes.temporary:
        count = len(changes.temporary)
        add(Finding("store", "note", f"{count} temporary file(s) of interrupted writes (e.g. {changes.temporary[0]})", settle))
    edited = len(changes.modified) + len(changes.added) + len(changes.deleted)
    if edited:
        add(
            Finding(
                "store",
                "note",
                f"{counted(edited, 'file')} edited by hand since the last commit (not indexed until committed)",
                "`ov status` lists them; `ov snapshot commit -m MESSAGE` records them",
            )
        )
    return head.decode()


def _check_tree_paths(git, head: bytes, add) -> None:
    """Paths no commit of ov's holds (``..``, ``.git``, a symbolic link, a name no URI may have):
    a pull took them in before pulls refused them. A problem in HEAD, whose files every later
    merge and restore meet; a note further back, where only a restore of that commit reaches them."""
    from ov.store.treepaths import first_unsafe, quoted, unsafe_paths

    # Not "a pull" only: an older ov wrote some of these too ("git~1", a name git reserves).
    came = "a pull took it in before ov refused such trees, or an older ov wrote it"
    # The trees found safe, shared with the tags' walks: most of their history is HEAD's.
    clean: set[tuple[bytes, str]] = set()
    # One walk of the history: HEAD comes first, so a path HEAD holds is the one found.
    try:
        found = first_unsafe(git.repo, [head], skip_missing=True, clean=clean)  # missing objects are reported above
    except object_damage() as exc:  # a tree of the history no walk above read (only HEAD's files are)
        add(Finding("store", "problem", f"the history is broken: an object of it is damaged ({exc})", "restore the account from a backup"))
        return
    if found is not None and found.commit == head.decode():
        # Rare, so HEAD is walked again to name every such path, not the first only.
        in_head = [p for p, _ in unsafe_paths(git.repo.object_store, git.tree_of(head), skip_missing=True) if p != found.path]
        more = f" (and {counted(len(in_head), 'other such path')}: {_listed(in_head)})" if in_head else ""
        add(
            Finding(
                "store",
                "problem",
                f"HEAD holds {quoted(found.path)}, which ov never writes: {found.problem}{more} ({came})",
                "remove it: `ov snapshot commit -m MESSAGE` when `ov status` lists it as unsafe or deleted, else `ov rm` its URI",
            )
        )
    elif found is not None:
        add(
            Finding(
                "store",
                "note",
                f"commit {found.commit[:10]} of the history holds {quoted(found.path)}, which ov never writes: {found.problem} ({came})",
                "HEAD no longer holds it: do not restore that commit",
            )
        )
    _check_tags(git, head, clean, add, came)


def _check_tags(git, head: bytes, clean: set[tuple[bytes, str]], add, came: str) -> None:
    """The histories of the tags that HEAD's does not hold (a tag a pull adopted before pulls
    checked tags, or made on a branch since reset): a restore of the tag reaches them."""
    from dulwich.object_store import peel_sha

    from ov.store.treepaths import first_unsafe, quoted

    repo = git.repo
    for name, sha in sorted(repo.refs.as_dict(b"refs/tags").items()):
        try:
            commit = peel_sha(repo.object_store, sha)[1]
        except KeyError:
            continue  # a tag of an object that is not here: nothing of it can be restored
        if commit.type_name != b"commit":
            continue
        found = first_unsafe(repo, [commit.id], [head], skip_missing=True, clean=clean)
        if found is None:
            continue
        tag = name.decode("utf-8", "backslashreplace")
        add(
            Finding(
                "store",
                "note",
                f"tag {tag!r} reaches commit {found.commit[:10]}, which holds {quoted(found.path)}, which ov never writes: {found.problem} ({came})",
                f"do not restore that tag (a restore refuses it); remove it with `git tag -d {tag}` in {git.worktree}",
            )
        )


# How many paths a finding names before it gives the rest as a count.
PATHS_LISTED = 5


def _listed(paths: list[str]) -> str:
    from ov.store.treepaths import quoted

    shown = ", ".join(quoted(p) for p in paths[:PATHS_LISTED])
    return shown + (f" and {len(paths) - PATHS_LISTED} more" if len(paths) > PATHS_LISTED else "")


def _misfiled_finding(paths: list[str]) -> Finding:
    """A note for dated notes an older ov made of what ov files elsewhere now: nothing is damaged,
    but ``ov remember`` of the same words writes a second copy, and a correction leaves them as they were."""
    users = sorted({path.split("/")[1] for path in paths})
    other = f"; another user's with `--user {users[-1]}`" if len(users) > 1 else ""
    return Finding(
        "store",
        "note",
        f"{counted(len(paths), 'dated note')} an older ov made of what ov now files as a preference, a fact or a profile line: {_listed(paths)}; "
        "`ov remember` of the same words writes a second copy, and a correction leaves the note as it was",
        f"`ov refile` files them where `ov remember` does, in one commit (`--dry-run` lists them; name the notes to move only those){other}",
    )


def _legacy_finding(legacy: list[tuple[str, str]]) -> Finding:
    """A note for HEAD's paths that hold a name an older ov stored and ov no longer makes: they
    work as they are (read, moved, removed, pulled, packed), so nothing is damaged, but a name
    with spaces cannot be typed back and a hidden id is missing from `ov ls`."""
    fixes = []
    spaced = [p.split("/") for p, _ in legacy if any(part != part.strip() for part in p.split("/"))]
    if spaced:
        parts = spaced[0]
        at = next(i for i, part in enumerate(parts) if part != part.strip())
        # A name of spaces only strips to nothing: the suggestion gives it a name that works.
        shown, renamed = "/".join(parts[: at + 1]), "/".join([*parts[:at], parts[at].strip() or "unnamed"])
        fixes.append(f"a name with surrounding spaces: `ov mv` it, e.g. `ov mv 'viking://{shown}' viking://{renamed}`, or `ov add-resource` its source again (it is replaced)")
    hidden = sorted({folder for p, _ in legacy for folder in hidden_ids(VikingURI(tuple(p.split("/"))))})
    sessions = [folder for folder in hidden if len(folder.parts) == 4 and folder.parts[2] == "sessions"]
    hidden = [folder for folder in hidden if folder not in sessions]
    if sessions:
        fixes.append(f"a session id starting with '.': the session is shown and deleted by its id, e.g. `ov session delete {sessions[0].name}`")
    if hidden:
        shown, renamed = hidden[0], VikingURI((*hidden[0].parts[:-1], hidden[0].name.lstrip(".")))
        fixes.append(f"an id starting with '.': move what its folder holds to a new id, e.g. `ov mv {shown}/FOLDER {renamed}/FOLDER` (`ov ls {shown}` lists them)")
    return Finding(
        "store",
        "note",
        f"{counted(len(legacy), 'file')} of HEAD {'has a name' if len(legacy) == 1 else 'have names'} an older ov stored and ov no longer makes "
        f"({legacy[0][1]}): {_listed([p for p, _ in legacy])}; they are read, moved, pulled and restored as they are",
        "to rename or remove them: " + "; ".join(fixes),
    )


def _walk(git, tree_id, prefix: str):
    """(path, sha) of every file under ``tree_id``; a missing subtree is reported as its own path."""
    try:
        tree = git.repo.object_store[tree_id]
    except (KeyError, *object_damage()):  # the caller finds it missing or damaged
        yield prefix or "/", tree_id
        return
    for item in tree.iteritems():
        # Surrogates keep a name that is not UTF-8 whole; the tree paths' check reports it.
        name = item.path.decode("utf-8", "surrogateescape")
        path = f"{prefix}/{name}" if prefix else name
        if stat.S_ISDIR(item.mode):
            yield from _walk(git, item.sha, path)
        else:
            yield path, item.sha


def _check_index(store, head: str, report: FsckReport, refused, progress: Progress | None) -> None:
    """``refused``: why ov may not write to the store, or None. Searches build, rebuild and
    update the index, so what they would settle is left as it is while that holds: the fixes say
    so rather than promise what the next search cannot do."""
    from ov.errors import IndexDamaged, StoreNotWritable
    from ov.index.folder import META_NAME, TEXT_DIR, Meta
    from ov.index.lexical import Filters, LexicalIndex
    from ov.index.records import committed_records
    from ov.index.sync import Indices

    add = report.findings.append
    indices = Indices(store)
    meta = Meta.read(indices.root / META_NAME)
    if refused is None:
        rebuild = "run `ov reindex` (any search also rebuilds it)"
        # A search does not rebuild damaged vectors: it falls back from a copy that does not load to
        # hnswlib's file, and from a damaged hnswlib file to an intact copy.
        reindex = "run `ov reindex`"
        build = "the next search builds it, or run `ov reindex`"
        catch_up = "the next search catches up"
        retry = "the next search makes them"
        rewrite = "the next index update rewrites it"
    else:
        rebuild = reindex = build = "run `ov reindex` once ov may write to the store (the store problem says why it may not)"
        catch_up = "searches read it as it is, without what was committed since, until ov may write to the store (the store problem says why it may not)"
        retry = rewrite = "left as it is until ov may write to the store (the store problem says why it may not)"
    if meta is None:
        # Derived data: the next search builds it (a fresh store has never had one).
        add(Finding("index", "note", "the index is not built yet (or its meta.json is unreadable)", build))
        return
    problem = indices.incompatibility(meta)
    if problem is not None:
        # Built by another ov, or for another language or embedder than configured: the next search
        # rebuilds it by itself, as for an index not built yet. A vector file gone is damage.
        damaged = bool(meta.vectors_file) and not (indices.root / meta.vectors_file).is_file()
        add(Finding("index", "problem" if damaged else "note", f"the index cannot be used as it is: {problem}", rebuild))
        return
    try:
        lexical = LexicalIndex.open(indices.root / TEXT_DIR, meta.language)
        indexed = {h.record.id: h.label for h in lexical.fetch(Filters(), max(lexical.count(), 1))}
    except IndexDamaged as exc:
        # Only a search that reads the damaged part rebuilds it: reindex now.
        add(Finding("index", "problem", exc.message, reindex))
        return
    except StoreNotWritable as exc:
        # Not damage (no temporary folder to read it through): a reindex would meet the same
        # refusal, and the store's finding says it.
        add(Finding("index", "note", f"the full-text index was not checked: {exc.message}", exc.hint))
        return
    except (OSError, ValueError) as exc:
        add(Finding("index", "problem", f"the full-text index does not open: {exc}", rebuild))
        return
    report.checked["records"] = len(indexed)
    if meta.commit != head:
        add(Finding("index", "note", f"the index reflects {str(meta.commit)[:10]}, HEAD is {head[:10]}", catch_up))
        return
    git = store.git
    expected = set()
    files = git.iter_entries(git.tree_of(head.encode()))
    for path, mode, sha in counting(files, progress, "checking the index", report.checked.get("files")):
        if sha not in git.repo.object_store:
            continue  # already reported as store damage
        expected.update(r.id for r in committed_records(git, path, mode, sha))
    missing, extra = expected - indexed.keys(), indexed.keys() - expected
    if missing or extra:
        add(
            Finding(
                "index",
                "problem",
                f"the full-text index disagrees with HEAD: {len(missing)} record(s) missing, {len(extra)} extra"
                + (f" (e.g. {sorted(missing or extra)[0]})" if missing or extra else ""),
                # A search only rebuilds an index that does not open or does not fit the
                # configuration; one that opens and holds other records is searched as it is.
                reindex,
            )
        )
    if meta.embedder and meta.vectors_file and not meta.vectors_stale:
        from ov.index.vector_delta import Delta, DeltaVectors
        from ov.index.vector_groups import GroupedVectors
        from ov.index.vectors import ExactVectors, OlderCopy, VectorIndex, exact_path, groups_path, hnsw_problem, record_label

        dimension = meta.embedder["dimension"]
        try:
            delta = Delta.load(indices.root / meta.vectors_delta, dimension) if meta.vectors_delta else None
        except (OSError, ValueError) as exc:
            add(Finding("index", "problem", f"the vector delta does not load: {exc}", reindex))
            return
        generation_live = meta.vectors if delta is None else delta.base_live
        generation = indices.root / meta.vectors_file
        try:
            vectors = VectorIndex.load(generation, dimension, generation_live)
            in_generation = vectors.labels()
            live = in_generation if delta is None else DeltaVectors(vectors, delta).labels()
        except (OSError, RuntimeError) as exc:
            # hnswlib says little ("Index seems to be corrupted or unsupported"); its header says more.
            why = hnsw_problem(generation, dimension, generation_live) or exc
            add(Finding("index", "problem", f"the vector index does not open: {why}", reindex))
            return
        report.checked["vectors"] = len(live)
        if {record_label(label) for label in live} != set(indexed.values()):
            add(Finding("index", "problem", f"the vector index has {len(live)} vectors for {len(indexed)} records", reindex))
        for name, copy, reader in (("flat", exact_path(generation), ExactVectors), ("grouped", groups_path(generation), GroupedVectors)):
            if not copy.is_file():
                continue
            try:
                loaded = reader.load(copy, dimension, generation_live)
                copied = loaded.labels()
            except OlderCopy:
                add(Finding("index", "note", f"the {name} copy of the vectors is in an older format (searches use hnswlib)", rewrite))
                return
            except (OSError, ValueError) as exc:
                add(Finding("index", "problem", f"the {name} copy of the vectors does not load: {exc}", reindex))
                return
            if copied != in_generation:
                add(Finding("index", "problem", f"the {name} copy of the vectors holds {len(copied)} vectors, the index {len(in_generation)}", reindex))
            elif differing := _differing_rows(loaded, vectors):
                # Damage inside a copy of the right size loads and is searched: only this finds it.
                add(Finding("index", "problem", f"the {name} copy of the vectors differs from the index in {differing} of {len(in_generation)} vectors", reindex))
    elif meta.vectors_stale:
        failed = indices.vectors_failure() if refused is None else None
        if failed is not None:
            add(Finding("index", "note", f"vectors are behind: {failed}", "run `ov reindex` once the embedder answers"))
        else:
            add(Finding("index", "note", "vectors are behind (not made yet after the full text, or the embedder failed last time)", retry))


# Quantising to 16 bits moves a copy's component by at most 2e-5 from the index's; a component
# moved by more than this is damage, large enough to change what a search finds.
COPY_TOLERANCE = 1e-3
# Rows compared at a time: hnswlib hands its vectors over as Python lists first, which for a whole
# index of 53,000 vectors cost 770 MB.
_COMPARED = 2048


def _differing_rows(copy, vectors) -> int:
    """How many of a flat or grouped copy's vectors differ from the vector index's (a NaN, as
    from a damaged scale, differs from anything)."""
    import numpy as np

    rows = copy.rows()
    labels = list(rows)
    differing = 0
    for at in range(0, len(labels), _COMPARED):
        chunk = labels[at : at + _COMPARED]
        ours = np.stack([rows[label] for label in chunk])
        differing += int((~(np.abs(ours - vectors.rows_of(chunk)) <= COPY_TOLERANCE).all(axis=1)).sum())
    return differing
