"""The store's history: ``ov snapshot log|show|diff|restore|tag``.

Auditing what an agent learned is reading commits: every command is one commit
whose message names the command (``Ov-Command``), the adapter that ran it
(``Ov-Via``: ``cli``, ``mcp CLIENT``, ``hook HOST``) and the URIs it touched
(``Ov-Uri``). Undoing it is :func:`restore`: the files of a subtree as they
were at a revision, written as a **new** commit on top, so history is never
rewritten and the undo can itself be undone.

Revisions are spelled like git's: a full or abbreviated commit id (at least 4
hex digits, unambiguous), a tag name (``ov snapshot tag``), ``HEAD``, and any
of them followed by ``~N`` or ``^`` (first parents).
"""

from __future__ import annotations

import difflib
import re
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ov.changes import listed_changes
from ov.errors import AlreadyExists, InvalidInput, NotFound, UnsafeTree, quote
from ov.files import looks_binary
from ov.store.sidecar import MESSAGES
from ov.store.store import COMMIT_COMMANDS, VIAS, message_paragraphs, trailers
from ov.store.treepaths import quoted, shown
from ov.uri import VikingURI

TAG_PREFIX = b"refs/tags/"
MAX_LOG = 10_000
DIFF_CONTEXT = 3
_REV_RE = re.compile(r"^(?P<base>[A-Za-z0-9][A-Za-z0-9._/-]*)(?P<walk>(?:~\d*|\^)*)\Z")
_WALK_RE = re.compile(r"~(\d*)|\^")
# git's rules for a ref's name also refuse "..", a name ending in "." and one ending in ".lock"
# (which ov's sweep of stale locks would take for a lock file). \Z, not $: "$" lets a last "\n" through.
_TAG_RE = re.compile(r"^(?!.*\.\.)(?!.*\.lock\Z)[A-Za-z0-9][A-Za-z0-9._-]{0,99}(?<!\.)\Z")


class UnknownRevision(InvalidInput):
    """A well-formed revision that names no commit of this store: bad input, as a malformed one is."""

    code = "unknown_revision"
    hint = "see `ov snapshot log` for commit ids and `ov snapshot tag` for tags"


@dataclass(frozen=True)
class LogEntry:
    """One commit of the account's history as `ov log` shows it."""

    commit: str
    time: str
    author: str
    subject: str
    command: str
    uris: tuple[str, ...]
    tags: tuple[str, ...] = ()
    via: str | None = None  # the adapter that wrote it ("cli", "mcp claude-code", "hook codex"); None: not said
    uris_more: int = 0  # URIs the commit touched beyond those its message lists (it names 200 at most)
    # Files whose edit by hand the commit took in (a session commit merges its memories into it):
    # those lines are the user's, not the command's.
    hand_edits: tuple[str, ...] = ()
    body: str = ""  # the message's paragraphs after the subject, before the trailers: a user's (snapshot commit)
    reverts: str | None = None  # the full id of the commit a `snapshot revert` took back (Ov-Reverts)

    def to_dict(self) -> dict:
        return {
            "commit": self.commit,
            "time": self.time,
            "author": self.author,
            "subject": self.subject,
            "body": self.body,
            "command": self.command,
            "via": self.via,
            "uris": list(self.uris),
            "uris_more": self.uris_more,
            "hand_edits": list(self.hand_edits),
            "reverts": self.reverts,
            "tags": list(self.tags),
        }


@dataclass(frozen=True)
class FileChange:
    """One file that differs between two snapshots, with its diff."""

    path: str
    change: str  # added | modified | deleted
    diff: str = ""  # unified diff ("" for binary content)
    binary: bool = False
    # Why ov never writes this entry (a symbolic link, a submodule): its content is not shown.
    refused: str = ""

    @property
    def uri(self) -> str:
        return "viking://" + self.path

    def line_counts(self) -> tuple[int, int]:
        """The lines the diff adds and removes (its ---/+++ header not counted)."""
        lines = self.diff.split("\n")
        body = lines[next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines)) :]
        return sum(1 for line in body if line.startswith("+")), sum(1 for line in body if line.startswith("-"))

    def stat_dict(self) -> dict:
        """``--stat``'s view of the change: its counts in place of the diff (none for content
        not shown: binary, or an entry ov never writes)."""
        out = self.to_dict(with_diff=False)
        if not (self.binary or self.refused):
            out["added"], out["removed"] = self.line_counts()
        return out

    def to_dict(self, with_diff: bool = True) -> dict:
        out = {"uri": self.uri, "change": self.change}
        if self.binary:
            out["binary"] = True
        if self.refused:
            out["refused"] = self.refused
        if with_diff:
            out["diff"] = self.diff
        return out


@dataclass
class RestorePlan:
    """What restoring a snapshot writes and deletes, the live sessions it leaves as they are, and
    the commit it made."""

    rev: str
    commit: str
    write: list[str] | set[str] = field(default_factory=set)  # a set while planned, sorted when done
    delete: list[str] | set[str] = field(default_factory=set)
    # Those of ``write`` there now with other content, changed since the revision: changes undone.
    rolled_back: list[str] | set[str] = field(default_factory=set)
    # The folders of the live sessions that differ from the revision, left as they are (see _left_live).
    kept_live: list[str] | set[str] = field(default_factory=set)
    new_commit: str | None = None

    @property
    def changed(self) -> bool:
        return bool(self.write or self.delete)

    def sorted(self) -> RestorePlan:
        self.write, self.delete, self.kept_live = sorted(self.write), sorted(self.delete), sorted(self.kept_live)
        self.rolled_back = sorted(self.rolled_back)
        return self

    def to_dict(self) -> dict:
        rolled_back = set(self.rolled_back)
        return {
            "rev": self.rev,
            "source_commit": self.commit,
            "written": ["viking://" + p for p in self.write],
            "rolled_back": ["viking://" + p for p in self.rolled_back],
            "deleted": ["viking://" + p for p in self.delete],
            "kept_live": ["viking://" + p for p in self.kept_live],
            "commit": self.new_commit,
            "changes": listed_changes(
                ["viking://" + p for p in self.write if p not in rolled_back],
                ["viking://" + p for p in self.rolled_back],
                ["viking://" + p for p in self.delete],
            ),
        }


# --- revisions ------------------------------------------------------------------


def revision(rev: str) -> str:
    """``rev`` without the whitespace around it: a revision read from a file or a program's output
    ends in a newline, which in a restore's commit subject cut it in two. Whitespace inside is
    left for :func:`resolve` to refuse."""
    return rev.strip()


def resolve(store, rev: str) -> bytes:
    """The commit id ``rev`` names; InvalidInput for a malformed one, UnknownRevision for one that names
    no commit; NotFound when the store has no history at all."""
    git = store.git
    _require_history(store)
    rev = revision(rev)
    match = _REV_RE.match(rev)
    if not match:
        hint = "use a commit id, a tag, HEAD, or one of them with ~N"
        if "@{" in rev:  # git's reflog times (HEAD@{yesterday}): ov keeps no reflog, its log has the times
            hint = "ov has no HEAD@{...}: find the commit with `ov snapshot log --after 2026-11-30` (or --before), then give its id"
        raise InvalidInput(f"{rev!r} is not a revision", hint=hint)
    commit = _base(store, match.group("base"))
    for step in _WALK_RE.finditer(match.group("walk")):
        count = 1 if step.group(0) == "^" or step.group(1) == "" else int(step.group(1))
        for _ in range(count):
            parents = git.repo[commit].parents
            if not parents:
                raise UnknownRevision(f"{rev} goes back further than the first commit")
            commit = parents[0]
    return commit


def _base(store, name: str) -> bytes:
    git = store.git
    if name == "HEAD":
        head = git.head()
        if head is None:
            raise NotFound("the store has no commits yet")
        return head
    refs = git.repo.refs
    tag_ref = TAG_PREFIX + name.encode()
    # A tag plain git made may have folders (release/1.0); ov makes none, but reads them.
    if all(_TAG_RE.match(part) for part in name.split("/")) and tag_ref in refs:
        try:
            found = _peel(git, refs[tag_ref])
        except KeyError as exc:
            raise UnknownRevision(f"the tag {name} {_names_gone(exc)}") from None
        kind = _kind(git, found)
        if kind != "commit":  # plain git may tag a tree or a file (`git tag T 'HEAD^{tree}'`)
            raise UnknownRevision(f"the tag {name} names a {kind}, not a commit")
        return found
    if re.fullmatch(r"[0-9a-fA-F]{4,40}", name):
        found = _commits_with_prefix(git, name.lower())
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise InvalidInput(f"{name} is ambiguous: {len(found)} commits start with it", hint="give more digits")
    raise UnknownRevision(f"unknown revision {name!r}")


def _commits_with_prefix(git, prefix: str) -> list[bytes]:
    head = git.head()
    if head is None:
        return []
    return [entry.commit.id for entry in git.repo.get_walker(include=[head]) if entry.commit.id.decode().startswith(prefix)]


def _peel(git, sha: bytes) -> bytes:
    """The object a tag names, through annotated tags; KeyError (naming the id) when the store
    lacks one on the way: plain git wrote the tag, or the objects were lost (``ov fsck`` passes
    over it: nothing of it can be restored)."""
    obj = git.repo[sha]
    while obj.type_name == b"tag":
        obj = git.repo[obj.object[1]]
    return obj.id


def _kind(git, sha: bytes) -> str:
    """What the object ``sha`` is, in ov's words: a commit, a tree, a file (git's blob)."""
    kind = git.repo[sha].type_name.decode()
    return "file" if kind == "blob" else kind


def _names_gone(missing: KeyError) -> str:
    """What a tag whose object :func:`_peel` did not find names, said."""
    sha = missing.args[0] if missing.args else b""
    shown = sha.decode("ascii", "replace")[:10] if isinstance(sha, bytes) else str(sha)[:10]
    return f"names {shown}, which this store does not hold"


# --- log ------------------------------------------------------------------------


@dataclass(frozen=True)
class LogFilter:
    """Which commits `ov snapshot log` lists (of those that changed its ``--uri``): made between
    ``after`` and ``before`` (epoch seconds, both included), through one of ``via`` and by one of
    ``commands`` (each a value or its first words: ``hook`` is ``hook claude`` too)."""

    after: float | None = None
    before: float | None = None
    via: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()

    def check_named(self, listed: list[LogEntry]) -> None:
        """Refuse a ``via`` or ``commands`` value that ov never writes and no commit in ``listed`` (all
        those the filter took) has: a typo ("hooks", "remeber") is bad input, not a filter that
        matched nothing. A value only an older ov wrote is taken while its commits are there."""
        for value in self.via:
            if value.split(" ", 1)[0] not in VIAS and not any(_names_one_of(e.via, (value,)) for e in listed):
                raise InvalidInput(
                    f"no commit is made via {quote(value)}",
                    hint=f"via is one of {', '.join(VIAS)}, alone or with its client or host (hook claude, mcp claude-code)",
                )
        known = sorted(COMMIT_COMMANDS | {c.split(" ", 1)[0] for c in COMMIT_COMMANDS})
        for value in self.commands:
            if value not in known and not any(_names_one_of(e.command, (value,)) for e in listed):
                close = difflib.get_close_matches(value, known, n=1)
                raise InvalidInput(
                    f"no ov command commits as {quote(value)}" + (f": did you mean {quote(close[0])}?" if close else ""),
                    hint=f"the commands that commit are: {', '.join(known)}",
                )

    def takes(self, entry: LogEntry, when: int) -> bool:
        if self.before is not None and when > self.before:
            return False
        return _names_one_of(entry.via, self.via) and _names_one_of(entry.command, self.commands)


@dataclass(frozen=True)
class LogResult:
    """The commits a log lists, and whether it stopped at its cap with more to list."""

    entries: list[LogEntry]
    capped: bool = False  # stopped at MAX_LOG entries with older commits left unread


def log(store, uri: VikingURI | None = None, limit: int | None = None, *, where: LogFilter | None = None) -> LogResult:
    """Commits newest first by commit time, as ``git log`` lists them: those merged in by a pull
    too, each with its own command and adapter (a merge is listed for ``uri`` only when it made
    that subtree other than every side it joined: what it took from one side, that side's commits
    wrote). With ``uri``, only the commits that changed that subtree; ``where`` filters further."""
    where = where or LogFilter()
    if not store.exists or store.git.head() is None:
        return LogResult([])
    git = store.git
    path = uri.path if uri is not None and not uri.is_root else ""
    touched = _Touched(git, path) if path else None
    tags = _tags_by_commit(git)
    out: list[LogEntry] = []
    wanted = MAX_LOG if limit is None else min(limit, MAX_LOG)
    older = 0
    for commit, parent_trees in _walk(git, git.head()):
        if len(out) >= wanted:
            return LogResult(out, capped=wanted == MAX_LOG and (limit is None or limit > MAX_LOG))
        if where.after is not None and commit.commit_time < where.after:
            # Commit time is no order of ancestry: a commit made on a machine whose clock ran slow
            # looks older than the commits it was made on top of, which are read only after it.
            # So the walk reads on, past as many older commits as a log lists at most.
            older += 1
            if older >= MAX_LOG:
                break
            continue
        if touched is not None and not touched(commit.tree, parent_trees):
            continue
        entry = _entry(commit, tags.get(commit.id, ()))
        if where.takes(entry, commit.commit_time):
            out.append(entry)
    where.check_named(out)  # the whole history read: a value none of it has may be a typo
    return LogResult(out)


def _names_one_of(value: str | None, wanted: tuple[str, ...]) -> bool:
    """Whether ``value`` is one of ``wanted`` or starts with one of them and a space (none
    wanted: any value)."""
    if not wanted:
        return True
    return value is not None and any(value == w or value.startswith(w + " ") for w in wanted)


def _walk(git, head: bytes):
    """(commit, its parents' trees) of every commit reachable from ``head``, newest commit time
    first. Each commit object is read once: a parent when its first child is listed, its tree
    kept until the parent is listed itself (an audit of a long history is mostly these reads)."""
    import heapq
    from itertools import count

    order = count()  # same-second commits: in the order they were reached, a child before its parent
    first = git.repo[head]
    queue = [(-first.commit_time, next(order), first)]
    seen = {head}
    trees: dict[bytes, bytes] = {}
    while queue:
        commit = heapq.heappop(queue)[2]
        for parent_id in commit.parents:
            if parent_id not in seen:
                seen.add(parent_id)
                parent = git.repo[parent_id]
                trees[parent_id] = parent.tree
                heapq.heappush(queue, (-parent.commit_time, next(order), parent))
        # A parent listed before this child (a clock set back on one machine) is read again.
        yield commit, [trees[p] if p in trees else git.tree_of(p) for p in commit.parents]
        trees.pop(commit.id, None)


class _Touched:
    """Whether a commit changed ``path``: its entry there (and its spelling) differs from the
    entry in each of its parents' trees (in the empty tree for the first commit). Each tree's
    entry is looked up once: a commit's "now" is its child's "before"."""

    def __init__(self, git, path: str) -> None:
        self.git, self.path = git, path
        self.found: dict[bytes | None, tuple[str, tuple[int, bytes] | None]] = {None: (path, None)}

    def __call__(self, tree: bytes, parent_trees: list[bytes]) -> bool:
        now = self._at(tree)
        return all(self._at(t) != now for t in parent_trees or [None])

    def _at(self, tree: bytes | None) -> tuple[str, tuple[int, bytes] | None]:
        # Each tree is asked for the name as it spells it: a commit that changed only the spelling
        # (a decomposed name renamed to NFC) shows as touching it.
        found = self.found.get(tree)
        if found is None:
            name = self.git.spelled(tree, self.path)
            found = self.found[tree] = (name, self.git.entry(tree, name))
        return found


def _body(commit) -> str:
    """A commit's message after its subject line and before its trailers: the body a user gave
    ``ov snapshot commit`` (a second ``-m``, or lines after a blank one), "" for ov's own commits."""
    paragraphs = message_paragraphs(commit)
    last = paragraphs[-1]
    if len(paragraphs) > 1 and all(line.startswith("Ov-") for line in last.splitlines()):
        paragraphs = paragraphs[:-1]
    return "\n\n".join(paragraphs).partition("\n")[2].strip("\n")


def _entry(commit, tags: tuple[str, ...]) -> LogEntry:
    message = commit.message.decode("utf-8", "replace")
    subject = message.splitlines()[0] if message else ""
    found = trailers(commit)
    command = next((v for k, v in found if k == "Ov-Command"), "")
    via = next((v for k, v in found if k == "Ov-Via"), None) or None
    uris = tuple(v for k, v in found if k == "Ov-Uri")
    more = next((v for k, v in found if k == "Ov-Uri-More"), "0")
    hand_edits = tuple(v for k, v in found if k == "Ov-Hand-Edit")
    reverts = next((v for k, v in found if k == "Ov-Reverts"), None) or None
    when = datetime.fromtimestamp(commit.commit_time, tz=timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    return LogEntry(
        commit.id.decode(),
        when,
        commit.author.decode("utf-8", "replace"),
        subject,
        command,
        uris,
        tags,
        via,
        uris_more=int(more) if more.isdigit() else 0,
        hand_edits=hand_edits,
        body=_body(commit),
        reverts=reverts,
    )


def _tags_by_commit(git) -> dict[bytes, tuple[str, ...]]:
    out: dict[bytes, list[str]] = {}
    for ref, sha in git.repo.refs.as_dict(TAG_PREFIX).items():
        try:
            out.setdefault(_peel(git, sha), []).append(ref.decode())
        except KeyError:
            continue  # it marks no commit of the log
    return {k: tuple(sorted(v)) for k, v in out.items()}


# --- show and diff ----------------------------------------------------------------


def show(store, rev: str, uri: VikingURI | None = None, *, changes: bool = False) -> dict:
    """What commit ``rev`` changed (below ``uri`` when given), or a file as it was at ``rev``
    (``changes``: what the commit changed in that file instead). A ``uri`` the commit removed
    shows as its deletion."""
    git = store.git
    rev = revision(rev)
    commit_id = resolve(store, rev)
    commit = git.repo[commit_id]
    parent = commit.parents[0] if commit.parents else None
    parent_tree = git.repo[parent].tree if parent else None
    path = uri.path if uri is not None and not uri.is_root else ""
    if path:
        found = git.entry(commit.tree, git.spelled(commit.tree, path))
        if found is not None and not stat.S_ISDIR(found[0]) and not changes:
            refused = _refused(path, found[0])
            if refused:
                return {"commit": commit_id.decode(), "uri": str(uri), "refused": refused}
            data = git.blob_data(found[1])
            if looks_binary(data):
                return {"commit": commit_id.decode(), "uri": str(uri), "binary": True, "size": len(data)}
            return {"commit": commit_id.decode(), "uri": str(uri), "content": data.decode("utf-8")}
        if found is None and git.entry(parent_tree, git.spelled(parent_tree, path)) is None:
            raise NotFound(f"{uri} did not exist at {rev}", hint=f"see `ov snapshot log --uri {uri}`")
    entry = _entry(commit, _tags_by_commit(git).get(commit_id, ()))
    # A merge's changes are what it brought into its first parent, the line it was made on (git's
    # `show --first-parent`): for a pull, what came from the other machine and how it was joined.
    # `against` says which commit they are taken against, `merge` that there are other parents.
    return {
        **entry.to_dict(),
        "parents": [p.decode() for p in commit.parents],
        "merge": len(commit.parents) > 1,
        "against": parent.decode() if parent else None,
        "changes": _changes(store, parent_tree, commit.tree, path),
    }


def diff(store, from_rev: str | None = None, to_rev: str | None = None, uri: VikingURI | None = None) -> dict:
    """Unified diffs between two revisions (default: HEAD and the work tree, i.e. hand edits).

    With one revision, it is compared with HEAD: "what changed since FROM".
    """
    git = store.git
    _require_history(store)
    path = uri.path if uri is not None and not uri.is_root else ""
    if from_rev is None and to_rev is None:
        head, contents = _worktree_contents(store, path)
        changes = sorted((_file_change(rel, before, after) for rel, before, after in contents), key=lambda c: c.path)
        # "to" stays "work tree" for the scripts that read it; ``work_tree`` says it without a sentinel.
        return {"from": head.decode() if head else None, "to": "work tree", "work_tree": True, "changes": changes}
    old = resolve(store, from_rev or "HEAD")
    new = resolve(store, to_rev or "HEAD")
    changes = _changes(store, git.repo[old].tree, git.repo[new].tree, path)
    return {"from": old.decode(), "to": new.decode(), "work_tree": False, "changes": changes}


def _changes(store, old_tree, new_tree, path: str) -> list[FileChange]:
    git = store.git
    out = []
    spellings = {git.spelled(old_tree, path), git.spelled(new_tree, path)}
    for (old_path, new_path), modes, (old_sha, new_sha) in git.repo.object_store.tree_changes(old_tree, new_tree):
        name = (new_path or old_path).decode("utf-8", "surrogateescape")
        if path and not _below(name, spellings):
            continue
        refused = "; ".join(sorted({why for mode in modes if mode is not None and (why := _refused(name, mode))}))
        if refused:
            change = "added" if old_sha is None else "deleted" if new_sha is None else "modified"
            out.append(FileChange(shown(name), change, refused=refused))
            continue
        before = git.blob_data(old_sha) if old_sha is not None else None
        after = git.blob_data(new_sha) if new_sha is not None else None
        out.append(_file_change(name, before, after))
    return sorted(out, key=lambda c: c.path)


def _refused(path: str, mode: int) -> str:
    """Why the committed entry at ``path`` is shown by what it is, not by its content: what is not
    a regular file (a symbolic link's target, a submodule's commit) or not named as UTF-8 text,
    which a restore refuses too; "" for a file ov may read."""
    from ov.store.treepaths import FILE_MODES, stored_problem

    problem = stored_problem(path, mode)
    return problem if problem is not None and (mode not in FILE_MODES or shown(path) != path) else ""


def _worktree_contents(store, path: str) -> tuple[bytes | None, list[tuple[str, bytes | None, bytes | None]]]:
    """HEAD, and (path, content at HEAD, content in the work tree) of each file below ``path``
    that differs: read as `ov status` reads the work tree (:meth:`Store.quiet`), so a write of
    ov's being applied (a large restore moving its files into place) is never taken for hand
    edits. Only the reading holds the lock; the diffs are made after."""
    from ov.errors import StoreLocked
    from ov.store.worktree import scan

    git = store.git
    try:
        with store.quiet():
            head = git.head()
            tree = git.tree_of(head)
            changes = scan(git, refresh_index=False)
            spellings = {path, git.spelled(tree, path)}
            out = []
            for rel in changes.changed_paths:
                if path and not _below(rel, spellings):
                    continue
                found = git.entry(tree, rel)
                try:
                    after = (git.worktree / rel).read_bytes()
                except FileNotFoundError:
                    after = None
                out.append((rel, git.blob_data(found[1]) if found is not None else None, after))
    except StoreLocked as exc:
        raise StoreLocked(
            f"cannot tell hand edits from the write in progress: {exc.message}",
            hint="run the diff again once it is done (store.lock_timeout sets how long ov waits)",
        ) from None
    return head, out


def _below(name: str, paths: set[str]) -> bool:
    """Whether ``name`` is one of ``paths`` (the spellings of one path) or lies below it."""
    return any(name == p or name.startswith(p + "/") for p in paths)


def _lines(text: str) -> list[str]:
    """``text`` cut after each "\n", as git and patch read lines (splitlines also cuts at form
    feeds, U+2028 and eight more, which shifted the hunks' line numbers)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _file_change(path: str, before: bytes | None, after: bytes | None) -> FileChange:
    change = "added" if before is None else "deleted" if after is None else "modified"
    if looks_binary(before or b"") or looks_binary(after or b""):
        return FileChange(path, change, binary=True)
    a, b = _lines((before or b"").decode("utf-8")), _lines((after or b"").decode("utf-8"))
    label = "viking://" + path
    lines = difflib.unified_diff(
        a, b, fromfile=label if before is not None else "/dev/null", tofile=label if after is not None else "/dev/null", n=DIFF_CONTEXT
    )
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return FileChange(path, change, text)


# --- restore ------------------------------------------------------------------------


def restore(store, rev: str, uri: VikingURI | None = None, *, dry_run: bool = False) -> RestorePlan:
    """Bring ``uri`` (or everything) back to ``rev`` as one new commit on top of HEAD, with the
    generated summaries of the folders above it written again (as ``ov rm`` and ``ov mv`` do).

    A live session (messages captured and not yet archived by ``ov commit``) below ``uri`` is
    left as it is: it is a conversation still going on, not history to roll back, and the host's
    next capture reads on from where the last one stopped (:func:`_left_live`). One ``uri``
    names, or lies in, is restored as asked.

    A restore of thousands of files reads, checks and writes each of them: seconds that every
    other writer (a hook capturing a turn) would wait through, and time out in, if the write lock
    were held meanwhile. So the restore is planned in a draft against HEAD as it is, its files are
    staged and its objects stored, all without the lock; under the lock only the paths a commit or
    a hand edit changed since are planned again, and the rest is moved into place and committed.
    """
    git = store.git
    rev = revision(rev)  # as the commit's subject and the plan name it
    source = resolve(store, rev)
    # Any subtree, a scope or a user's tree included: the whole store may be restored, so may a part.
    path = uri.path if uri is not None and not uri.is_root else ""
    source_tree = git.repo[source].tree
    then = _entries(git, source_tree, path)
    target = uri if uri is not None and not uri.is_root else VikingURI(())
    plan = RestorePlan(rev, source.decode())
    with store.draft() as draft:
        now = _entries(git, draft.tree, path)
        if path and not then and not now:
            raise NotFound(f"{uri} exists neither at {rev} nor now")
        live = _live_sessions(git, now, path)
        _plan_restore(draft, then, now, _left_live(then.keys() | now.keys(), then, now, live, plan), plan, apply=not dry_run)
        if dry_run:
            draft.require_clean_plan()  # what the restore would refuse
        if dry_run or not plan.changed:
            return plan.sorted()
        draft.stage()
    try:
        with store.transaction() as tx:
            stale = draft.stale(tx, target)
            if stale is not None and _liveness_changed(git, tx.tree, stale, live, path):
                stale = None  # a session became live, or was committed, meanwhile: its files are planned with the rest
            if stale is None:  # nothing of the draft holds: the whole plan, under the lock
                plan = RestorePlan(rev, source.decode())
                now = _entries(git, tx.tree, path)
                _plan_restore(tx, then, now, _left_live(then.keys() | now.keys(), then, now, _live_sessions(git, now, path), plan), plan)
            else:
                draft.hand_over(tx)
                spellings = {path, git.spelled(source_tree, path), git.spelled(tx.tree, path)}
                inside = [p for p in stale if not path or _below(p, spellings)]
                # A file found below a folder that becomes a file again: that folder is planned
                # (and checked) again too.
                inside += sorted({folder for p in inside for folder in _folders_of(p) if folder in then} - set(inside))
                now = {p: found for p in inside if (found := git.entry(tx.tree, p)) is not None and not stat.S_ISDIR(found[0])}
                _plan_restore(tx, then, now, _left_live(inside, then, now, live, plan), plan)
            if plan.changed:
                # The summariser, only for a restore that writes.
                from ov.ingest.resource import refresh_summaries_above

                refresh_summaries_above(store, tx, [target])
                subject = f"ov snapshot restore {target} to {rev} ({source.decode()[:10]})"
                plan.new_commit = tx.commit("snapshot restore", [target], subject=subject).commit
    finally:
        draft.discard()
    return plan.sorted()


def _session_folder(path: str) -> str | None:
    """The folder of the session ``path`` is in or names (``user/U/sessions/S``), None outside any."""
    parts = path.split("/")
    return "/".join(parts[:4]) if len(parts) >= 4 and parts[0] == "user" and parts[2] == "sessions" else None


def _live_sessions(git, entries: dict[str, tuple[int, bytes]], path: str) -> set[str]:
    """The folders of the sessions among ``entries`` (path -> (mode, blob id)) whose message log
    holds messages no ``ov commit`` archived yet: live ones, still being captured. The session
    the restored ``path`` names, or lies in, is not among them: that one was asked for (a
    damaged .meta.json brought back, as its error's hint says)."""
    empty = git.blob_id(b"")
    asked = _session_folder(path)
    return {folder for p, (_, sha) in entries.items() if (folder := _session_folder(p)) and p == f"{folder}/{MESSAGES}" and sha != empty and folder != asked}


def _left_live(paths, then: dict, now: dict, live: set[str], plan: RestorePlan) -> list[str]:
    """``paths`` but those of the ``live`` sessions, whose folders are noted in ``plan.kept_live``
    when the restore would have changed them. Rolled back, a live session lost the turns captured
    since the revision for good: the host's next capture reads its transcript on from where the
    last one stopped. Its archives and .meta.json stay with it, which count its messages."""
    out = []
    for p in paths:
        folder = _session_folder(p)
        if folder in live:
            if then.get(p) != now.get(p):
                plan.kept_live.add(folder)
            continue
        out.append(p)
    return out


def _liveness_changed(git, tree, stale: set[str], live: set[str], path: str) -> bool:
    """Whether a commit since the draft made a session live or archived its messages (its log
    among the ``stale`` paths; ``tree``: the one under the lock): the draft chose its files by that."""
    logs = {p for p in stale if (folder := _session_folder(p)) and p == f"{folder}/{MESSAGES}"}
    now = {p: found for p in logs if (found := git.entry(tree, p)) is not None}
    return bool({p.rsplit("/", 1)[0] for p in logs} & (live ^ _live_sessions(git, now, path)))


def _folders_of(path: str) -> list[str]:
    """The folders ``path`` is below (``a/b/c`` -> ``a``, ``a/b``)."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _entries(git, tree, path: str) -> dict[str, tuple[int, bytes]]:
    """path -> (mode, sha) of the entries of ``tree`` below ``path`` (in any spelling it has there)."""
    return {p: (mode, sha) for p, mode, sha in git.iter_entries(tree, git.spelled(tree, path))}


def _plan_restore(tx, then: dict[str, tuple[int, bytes]], now: dict[str, tuple[int, bytes]], paths, plan: RestorePlan, apply: bool = True) -> None:
    """Put into ``tx`` (and ``plan``) what makes each of ``paths`` what it was (``then``: path ->
    (mode, blob id) at the revision), given what it is (``now``), replacing what was planned for
    it before. A path that holds a hand edit is refused, all checked before any is put, in a
    dry run (``apply`` false: the plan only) too: it says what the restore would."""
    from ov.store.gitstore import escape_problem
    from ov.store.treepaths import stored_problem

    git = tx.git
    wanted: dict[str, tuple[int, bytes] | None] = {}
    for rel in paths:
        plan.write.discard(rel)
        plan.rolled_back.discard(rel)
        plan.delete.discard(rel)
        tx.changes.pop(rel, None)
        if now.get(rel) != then.get(rel):
            wanted[rel] = then.get(rel)
    problems = {rel: escape_problem(rel) for rel in sorted(wanted)}
    for rel, problem in problems.items():
        if wanted[rel] is None:
            continue  # one to delete: it leaves the tree
        # The rule of a pull and a restore: a name an older ov stored ("todo ", a user ".bob")
        # comes back as it was, and stays addressable; a path none of them takes does not.
        # A symbolic link or a submodule is refused as a pull refuses it, never written as a file.
        problem = problem or stored_problem(rel, wanted[rel][0])
        if problem is not None:
            raise UnsafeTree(f"{plan.rev} holds {quoted(rel)}, which ov never writes: {problem}", hint="restore a revision before it, or only a part of the store with --uri")
    for rel, problem in problems.items():
        if problem is None:  # one to delete: it leaves the tree, nothing on disk is touched
            uri = VikingURI(tuple(rel.split("/")))
            tx.require_clean(uri)
            if wanted[rel] is not None and tx.store.path(uri).is_dir():
                # A folder that becomes a file again: a file made there by hand would be lost
                # with it (as an import or `ov mv` refuses it).
                tx.require_clean_tree(uri)
    for rel, entry in wanted.items():
        if entry is None:
            plan.delete.add(rel)
            if apply:
                tx.delete(VikingURI(tuple(rel.split("/"))))
        else:
            plan.write.add(rel)
            if now.get(rel) is not None:
                plan.rolled_back.add(rel)
            if apply:
                tx.put(VikingURI(tuple(rel.split("/"))), git.blob_data(entry[1]))


# --- tags ---------------------------------------------------------------------------


def tag(store, name: str, rev: str | None = None) -> dict:
    """Name a commit (default HEAD) so it can be given as a revision later."""
    name = revision(name)  # read from a file, it ends in a newline
    if not _TAG_RE.match(name) or name == "HEAD" or re.fullmatch(r"[0-9a-fA-F]{4,40}", name):
        raise InvalidInput(
            f"{name!r} is not a usable tag name",
            hint="letters, digits, '.', '_' and '-', starting with a letter or digit, without '..', not ending in '.' or"
            " '.lock', and not something that looks like a commit id",
        )
    from ov.store.gitstore import BRANCH

    commit = resolve(store, rev or "HEAD")
    refs = store.git.repo.refs
    branch = b"refs/heads/" + name.encode()
    if branch == BRANCH or branch in refs:
        # Plain git reads the name as the tag first ("ambiguous"): `git log main` would show the
        # tagged commit, not the branch ov commits to.
        raise InvalidInput(f"{name!r} is the name of a branch", hint="choose another name, e.g. before-cleanup")
    ref = TAG_PREFIX + name.encode()
    if ref in refs:
        raise AlreadyExists(f"tag {name} already exists", hint="choose another name")
    if not refs.add_if_new(ref, commit):
        raise AlreadyExists(f"tag {name} already exists")
    return {"tag": name, "commit": commit.decode()}


def delete_tag(store, name: str) -> dict:
    """Remove the tag ``name`` (the commits it named stay); NotFound for a name no tag has.

    The name is taken as it is listed (``ov snapshot tag``), so a tag plain git made with folders
    (release/1.0) or one that names no commit can be removed too."""
    name = revision(name)
    refs = store.git.repo.refs if store.exists else None
    ref = TAG_PREFIX + name.encode()
    parts = name.split("/")
    # A name that is not a tag's (``../x``) is never joined into a ref's path.
    sha = refs.read_ref(ref) if refs is not None and all(_TAG_RE.match(p) for p in parts) else None
    if sha is None:
        raise NotFound(f"no tag {name!r}", hint="`ov snapshot tag` lists the tags")
    try:
        found = _peel(store.git, sha)
        named = found.decode() if _kind(store.git, found) == "commit" else None
    except KeyError:
        named = None  # it named an object the store does not hold: nothing to say it named
    # Only the tag as it was read is removed: one made again meanwhile, by another process, stays.
    if not refs.remove_if_equals(ref, sha):
        now = refs.read_ref(ref)
        if now is None:
            raise NotFound(f"no tag {name!r}", hint="it was removed meanwhile: `ov snapshot tag` lists the tags")
        # Moved by another process (plain git's `tag -f`): what it names now was not asked about.
        # An annotated tag (`tag -a`) is named by the commit it marks, as `tag` lists it, not by
        # the tag object its ref holds, which no other command shows.
        try:
            now = _peel(store.git, now)
        except KeyError:
            pass  # it names an object the store lacks: that object's id is all there is to say
        raise AlreadyExists(
            f"tag {name!r} was moved meanwhile (it names {now.decode()[:10]} now): it was not deleted",
            hint=f"`ov snapshot tag -d {name}` again deletes it as it is now",
        )
    return {"tag": name, "commit": named, "deleted": True}


def tags(store) -> list[dict]:
    """Each tag and the commit it names; ``commit`` None for a tag that names none, with ``gone``
    saying what it names when the store does not hold that object, or ``kind`` and ``object`` when
    it is a tree or a file (plain git may tag those)."""
    if not store.exists:
        return []
    git = store.git
    listed = []
    for ref, sha in sorted(git.repo.refs.as_dict(TAG_PREFIX).items()):
        try:
            found = _peel(git, sha)
        except KeyError as exc:
            listed.append({"tag": ref.decode(), "commit": None, "gone": _names_gone(exc)})
            continue
        kind = _kind(git, found)
        if kind == "commit":
            listed.append({"tag": ref.decode(), "commit": found.decode()})
        else:
            listed.append({"tag": ref.decode(), "commit": None, "kind": kind, "object": found.decode()})
    return listed


def _require_history(store) -> None:
    if not store.exists or store.git.head() is None:
        raise NotFound("the store has no history yet", hint="the first write creates it")


def changes_dict(changes: list[FileChange], with_stat: bool = False) -> dict:
    """``changes`` as a result gives them: each with its diff, or (``with_stat``) with its line
    counts instead, and the totals under ``stat`` (files, lines added and removed)."""
    if not with_stat:
        return {"changes": [c.to_dict() for c in changes]}
    listed = [c.stat_dict() for c in changes]
    totals = {"files": len(listed), "added": sum(c.get("added", 0) for c in listed), "removed": sum(c.get("removed", 0) for c in listed)}
    return {"changes": listed, "stat": totals}
