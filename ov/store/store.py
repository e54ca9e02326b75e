"""The content store of one account: the filesystem operations behind ``ov ls``, ``ov write``, ...

Reads go straight to the work tree (plain files; no git needed). Every
mutating operation runs inside a :class:`Transaction`: it takes the account's
write lock, recovers an interrupted commit if there is one, checks that the
paths it touches hold no hand edits, collects its changes in memory, and ends
in exactly one commit (or none when nothing changed). Validation happens
before anything is written, so a failing command changes nothing.
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from ov.config import Config
from ov.errors import (
    AccountNotFound,
    AlreadyExists,
    AmbiguousMatch,
    BinaryContent,
    DirectoryNotEmpty,
    HandEditConflict,
    InvalidInput,
    InvalidURI,
    IsADirectory,
    NoMatch,
    NotADirectory,
    NotFound,
    NotRegularFile,
    OvError,
    StoreLocked,
    StoreNotWritable,
    UnsafeTree,
    proposal,
    quote,
)
from ov.files import content_problem, looks_binary, remove_empty_parents, special_kind
from ov.home import Home
from ov.identity import DEFAULT_ID, Identity
from ov.lines import FileLines
from ov import users
from ov.store import sidecar
from ov.progress import Progress, counting
from ov.store.gitstore import FILE_MODE, JOURNAL_NAME, STAGING, Author, GitStore, escape_problem
from ov.store.treepaths import shown
from ov.store.lock import WriteLock
from ov.store.worktree import WorktreeChanges, own_repository, recorded
from ov.uri import A_SCOPE, A_SESSION_FOLDER, A_USER_FOLDER, A_USER_ROOT, MAX_PATH_BYTES, PUBLIC_SCOPES, TEMP_MARKER, VikingURI, check_new_path, file_place_problem, from_path, hidden_ids, is_stored_segment, nfc, parse, parse_stored, path_bytes, standing_folder

if TYPE_CHECKING:
    from ov.waiting import Stop

WriteMode = Literal["replace", "append", "create"]
# A draft with at least this many changes stages its files and objects before taking the lock.
STAGE_THRESHOLD = 64
MAX_TRAILER_URIS = 200
MAX_VIA = 80  # characters of an Ov-Via trailer (an MCP client's name is the client's to choose)
# The adapters a commit is made through (an Ov-Via's first word: "cli", "mcp claude-code", "hook codex").
VIAS = ("cli", "mcp", "hook")
# Every command whose commits ov makes (Ov-Command): `ov snapshot log --command` takes these (and a
# value its history holds), so that a typo is bad input rather than a log that reads "nothing".
# tests/test_history.py checks that each command ov commits with is here.
COMMIT_COMMANDS = frozenset({
    "init", "write", "edit", "mkdir", "rm", "mv", "add-resource", "add-skill", "remember", "forget", "refile",
    "commit", "session new", "session add", "session used", "snapshot commit", "snapshot restore", "snapshot revert",
    "import", "restore", "pull",
})  # fmt: skip
ACCOUNTS_LISTED = 10  # the accounts an AccountNotFound names; a home with more says how many
# The stage a folder's move or removal reports while it reads each file to compare it with HEAD (ov.progress).
CHECKING = "checking files"


@dataclass(frozen=True)
class Entry:
    """One child of a directory as `ov ls` lists it."""

    uri: str
    name: str
    type: Literal["directory", "file"]
    size: int | None = None
    modified: str | None = None
    abstract: str | None = None

    @property
    def is_dir(self) -> bool:
        return self.type == "directory"


class Child(NamedTuple):
    entry: Entry
    path: Path
    uri: VikingURI


@dataclass
class TreeNode:
    """One node of `ov tree`, with its children."""

    uri: str
    name: str
    type: Literal["directory", "file"]
    children: list[TreeNode] = field(default_factory=list)
    truncated: bool = False


@dataclass(frozen=True)
class ReadResult:
    """Lines read from a file, and where they sit in it."""

    uri: str
    content: str
    start_line: int
    end_line: int
    total_lines: int


@dataclass(frozen=True)
class CommitResult:
    """The commit a mutating command made (None when nothing changed)."""

    command: str
    uris: tuple[str, ...]
    commit: str | None
    redacted: int = 0  # secrets a write asked to redact replaced (Store.write's and edit's ``redact``)

    @property
    def changed(self) -> bool:
        return self.commit is not None


class Store:
    """One account's store, seen as one user.

    ``read_only``: opened by a command that only reads. Opening an account that does not exist
    while the home holds others then fails with :class:`AccountNotFound` (see
    :meth:`missing_account`), before anything is read or created: a mistyped ``--account`` would
    otherwise read as an empty store. Opened to write (the default), the store creates its
    account with its first commit. The flag is checked here only; it forbids nothing later.

    ``confined``: opened for an agent acting for its user (the MCP server): every URI :meth:`uri`
    reads that lies in another user's space is refused (:func:`ov.users.require_own`), so no
    tool can read or change it. Opened at the terminal, the person owns the account's files.
    """

    def __init__(
        self,
        home: Home,
        identity: Identity,
        config: Config,
        *,
        read_only: bool = False,
        via: str | None = None,
        confined: bool = False,
        stop: Stop | None = None,
    ) -> None:
        self.home = home
        self.identity = identity
        self.confined = confined
        self.config = config
        self.root = home.account_dir(identity.account)
        self.state = home.state_dir(identity.account)
        self.git = GitStore(self.root, self.state)
        self._real_dirs: dict[str, str] = {}
        self._settled = False
        self.chain = None  # a CommitChain while the lock's holder serves this store's request (ov.store.group_commit)
        # Which adapter writes ("cli", "mcp claude-code", "hook codex"): an Ov-Via trailer of every
        # commit, so an audit tells an agent's writes from the user's own. None: not said.
        self.via = via_text(via)
        self.commits: list[str] = []  # the commits this store made, oldest first (the MCP log names them)
        # Why its caller is no longer wanted (an MCP call cancelled, its server stopping), or None:
        # a write stops while it waits for the lock or a model, never once its commit has begun; a
        # read, while it waits for a model (ov.waiting).
        self.stop = stop
        # The other users' spaces the last listing or walk from a scope-wide place left out (:meth:`leave_out`).
        self.left_out: tuple[VikingURI, ...] = ()
        if read_only:
            missing = self.missing_account()
            if missing is not None:
                raise missing

    def last_landed(self) -> str | None:
        """The newest commit this store made: from the moment the branch moved to it, before
        :attr:`commits` notes it (an interrupt may come in between), or one another writer served."""
        moved = self.git.landed.decode() if self.git.landed else None
        if moved and moved not in self.commits:
            return moved
        return self.commits[-1] if self.commits else None

    # --- identity and paths ----------------------------------------------

    @property
    def author(self) -> Author:
        return Author(self.identity.user, f"{self.identity.user}@{self.identity.account}.ov")

    @property
    def exists(self) -> bool:
        return self.git.exists

    def missing_account(self) -> AccountNotFound | None:
        """The error for reading this account when it has no repository while the home holds
        other accounts (a mistyped ``--account``), else None. A home with no account at all (a
        new install) and the default account not yet written to read as empty stores."""
        if self.identity.account == DEFAULT_ID or self.exists:
            return None
        accounts = self.home.accounts()
        if not accounts:
            return None
        named = ", ".join(accounts[:ACCOUNTS_LISTED]) + (f" and {len(accounts) - ACCOUNTS_LISTED} more" if len(accounts) > ACCOUNTS_LISTED else "")
        source = self.identity.source_of("account")
        origin = "" if source == "default" else f" (from {source})"
        return AccountNotFound(f"account {self.identity.account!r}{origin} does not exist in {self.root.parent} (accounts: {named})")

    def uri(self, text: str) -> VikingURI:
        """The URI ``text`` names in this store (see :meth:`on_disk`); one in another user's space
        is refused when the store is ``confined``."""
        return self.on_disk(self._parsed(text))

    def _parsed(self, text: str) -> VikingURI:
        try:
            uri = parse(text, self.identity.user)
        except InvalidURI as exc:
            uri = self._stored_name(text, exc)
        if self.confined:
            users.require_own(uri, self.identity.user)
        for folder in hidden_ids(uri, last=uri.name not in sidecar.SIDECARS):
            # An older ov made ids starting with '.' (`--user .bob`): those are reached, moved and
            # removed by their URIs, but ov makes no new one (it would be hidden from `ov ls`).
            if not os.path.isdir(self.root / folder.path):
                raise InvalidURI(f"{folder} does not exist, and ov makes no new id that starts with '.'", hint="start the id with a letter or a digit")
        return uri

    def _stored_name(self, text: str, refused: InvalidURI) -> VikingURI:
        """The URI ``text`` names when it is a file or folder an older ov stored with surrounding
        spaces ("todo "): it is read, moved and removed by its URI; else ``refused`` is raised, so
        that ov makes no new such name."""
        try:
            uri = parse_stored(text, self.identity.user)
        except InvalidURI:
            raise refused from None
        if uri.is_root or not os.path.lexists(self.root / uri.path):
            raise refused from None
        return uri

    def move_target(self, source: VikingURI, text: str) -> VikingURI:
        """The URI ``text`` names as the new place of ``source``, as :meth:`uri` reads it, except
        that ``source``'s own name in NFC is that new name, not ``source`` again: renaming a name
        stored decomposed to its composed form is how a store from before names were normalised
        is repaired."""
        typed = self._parsed(text)
        target = self.on_disk(typed)
        if target == source and typed.name != source.name:
            return VikingURI((*target.parts[:-1], typed.name))
        return target

    def file_uri(self, text: str) -> VikingURI:
        """The URI of a file to write: one written with a trailing '/' names a folder, and used to
        become a file of that name without a word."""
        uri = self.uri(text)
        if text.endswith("/") and not uri.is_root:
            self.require_file_uri(uri)  # a scope or a user's folder: that, rather than "drop the '/'"
            raise InvalidURI(f"{quote(text)} ends with '/', which names a folder, not a file", hint=f"write to {uri} without the '/', or to a file inside it")
        return uri

    def on_disk(self, uri: VikingURI) -> VikingURI:
        """``uri`` with each name spelled as the work tree spells it.

        A parsed URI is NFC, but a store may hold a name in another normal form (decomposed, as
        macOS writes it, from before typed URIs were normalised, or made by hand). When nothing
        is at the NFC name and the other form is there, that is the file meant: reading, writing,
        moving or removing it must reach it, never add a second file that looks the same.
        An ASCII URI costs nothing, one that exists a stat; only a missing name is looked for.
        """
        if uri.path.isascii() or os.path.lexists(self.root / uri.path):
            return uri
        parts = list(uri.parts)
        directory = str(self.root)
        for i, name in enumerate(parts):
            if not os.path.lexists(os.path.join(directory, name)):
                found = _spelled_otherwise(directory, name)
                if found is None:
                    break  # nothing there under any spelling: a new name, kept NFC
                parts[i] = found
            directory = os.path.join(directory, parts[i])
        return VikingURI(tuple(parts))

    def path(self, uri: VikingURI) -> Path:
        """The work-tree path of ``uri``; refused when a symbolic link would lead outside the store."""
        if not self._settled:
            self._settle()
        if not uri.parts:
            return self.root
        problem = escape_problem(uri.path)
        if problem is not None:  # only a tree ov did not write names such a path (a pull before pulls were checked)
            raise UnsafeTree(f"{uri} is not a path of the store: {problem}")
        path = self.root / uri.path
        parent = self._real_dir(str(path.parent))
        leaf = os.path.realpath(path) if os.path.islink(path) else os.path.join(parent, path.name)
        if not leaf.startswith(self._real_dir(str(self.root)) + os.sep):
            raise InvalidInput(f"{uri} leads outside the store through a symbolic link")
        return path

    def _settle(self) -> None:
        """Before the first read, finish a command that a crash interrupted, so reads never see
        its half-written work tree (phantom directories, rolled-back files). One stat when there
        is nothing to do; a writer at work right now owns the journal and is left alone."""
        self._settled = True
        from ov.store.gitstore import JOURNAL_NAME

        if not (self.state / JOURNAL_NAME).exists() or not self.exists:
            return
        try:
            with self.write_lock(0):
                _report_recovery(self.git.recover())
        except StoreLocked:
            return

    def _real_dir(self, directory: str) -> str:
        # Resolving symlinks costs a syscall per path component; directories are resolved once
        # per process (ingest resolves thousands of paths in the same few directories).
        real = self._real_dirs.get(directory)
        if real is None:
            real = self._real_dirs[directory] = os.path.realpath(directory)
        return real

    def init(self) -> bool:
        """Create the account repository; False when it already exists."""
        if self.exists:
            return False
        with self.write_lock():
            return self.make_repo()

    @contextmanager
    def first_write(self):
        """:meth:`init` for a command that plans before it takes the lock (``add-resource``):
        when the body fails and this call made the repository, which nothing has been committed
        to since, the repository goes again (as a :class:`Transaction` that made it does)."""
        made = self.init()
        head = self.git.head() if made else None
        try:
            yield
        except BaseException:
            if made:
                try:
                    with self.write_lock():
                        self.git.discard_unless_moved(head)
                except StoreLocked:
                    pass  # a long writer holds it: it is writing to this account, which stays
            raise

    # --- reading ------------------------------------------------------------

    def ls(self, uri: VikingURI, *, recursive: bool = False, show_all: bool = False) -> list[Entry]:
        """The entries of a directory (depth first with ``recursive``); a file lists itself, as ls(1) does.
        Other users' spaces are left out of a listing of the root or ``viking://user`` (:meth:`leave_out`)."""
        path = self._existing(uri)
        if path.is_file():
            return [self._entry(uri, path, is_dir=False)]
        return self._ls(uri, recursive, show_all, self.leave_out(uri))

    def _ls(self, uri: VikingURI, recursive: bool, show_all: bool, leave_out: frozenset[VikingURI]) -> list[Entry]:
        out: list[Entry] = []
        for child in self.entries(uri, show_all, leave_out):
            out.append(child.entry)
            if recursive and child.entry.is_dir and not own_repository(child.uri.path, child.path):
                out.extend(self._ls(child.uri, True, show_all, leave_out))
        return out

    def tree(self, uri: VikingURI, *, depth: int | None = None, show_all: bool = False) -> TreeNode:
        """The tree below a directory, other users' spaces left out as :meth:`ls` leaves them out."""
        self._require_dir(uri)
        node = TreeNode(str(uri), uri.name or "viking://", "directory")
        self._fill_tree(node, uri, depth, show_all, self.leave_out(uri))
        return node

    def leave_out(self, base: VikingURI) -> frozenset[VikingURI]:
        """The other users' spaces a listing or walk from ``base`` leaves out
        (:func:`ov.users.others_below`), recorded in :attr:`left_out` for the caller to say so."""
        self.left_out = users.others_below(self, base)
        return frozenset(self.left_out)

    def stat(self, uri: VikingURI) -> dict:
        """What is at ``uri``; a directory's ``children`` counts what :meth:`ls` lists."""
        path = self._existing(uri)
        try:
            st = path.stat()
        except FileNotFoundError:  # the root, a scope or a standing folder nobody wrote to: listed, so a directory
            st = None
        is_dir = _is_dir(uri, path)
        info: dict = {
            "uri": str(uri),
            "type": "directory" if is_dir else "file",
            "modified": _iso(st.st_mtime) if st is not None else None,
        }
        if is_dir:
            entries = list(self.entries(uri, show_all=True, leave_out=self.leave_out(uri)))
            info["children"] = sum(1 for c in entries if c.entry.name not in sidecar.SIDECARS)
            info["has_abstract"] = (path / sidecar.ABSTRACT).is_file()
            info["has_overview"] = (path / sidecar.OVERVIEW).is_file()
        else:
            # Read once, in parts: its lines counted, told text or not and its blob id taken as they
            # come, so a file of 500 MB costs a read of it, not 500 MB held twice (bytes and text).
            with path.open("rb") as file:
                st = os.fstat(file.fileno())  # the file read: a write since the stat above replaced it
                blob = self.git.blob_hash(st.st_size) if self.exists else None
                reading = _Hashed(file, blob) if blob is not None else file
                lines = FileLines.scan(reading)
                while blob is not None and reading.read(1 << 20):
                    pass  # the rest of a file that is not text, for its id
            info["modified"] = _iso(st.st_mtime)
            info["size"] = st.st_size
            info["binary"] = lines is None
            info["lines"] = None if lines is None else lines.total
            if blob is not None:
                info["state"] = self._file_state(uri, blob.hexdigest().encode())
        return info

    def read(self, uri: VikingURI, start: int | None = None, end: int | None = None) -> ReadResult:
        with self.open_lines(uri) as lines:
            first, last = line_span(uri, lines.total, start, end)
            if start is None and end is None:
                return ReadResult(str(uri), lines.text(), 1 if lines.total else 0, lines.total, lines.total)
            return ReadResult(str(uri), "".join(lines.lines(first, last)), first, max(last, first - 1), lines.total)

    @contextmanager
    def open_lines(self, uri: VikingURI) -> Iterator[FileLines]:
        """The lines of the file at ``uri``, read as they are taken (:class:`~ov.lines.FileLines`),
        for as long as the context lasts; what :meth:`read` refuses (a folder, a file that is not
        text) is refused here."""
        path = self._existing(uri)
        if _is_dir(uri, path):
            if _memories_folder(uri) and not any(True for _ in self.entries(uri, show_all=False)):
                # Before the first memory (or after the last is forgotten): not a failure to look.
                whose = {} if uri.parts[1] == self.identity.user else {"user": uri.parts[1]}
                hint = f"keep one with {proposal('remember', text=..., **whose)}; {proposal('ls', uri=str(uri))} lists them"
                raise IsADirectory(f"{uri} holds no memories yet", hint=hint)
            # Its overview, when it has one (the root never does): a proposal, as no tool is named overview.
            has_overview = not uri.is_root and (path / sidecar.OVERVIEW).is_file()
            overview = f", or read its overview with {proposal('overview', uri=str(uri))}" if has_overview else ""
            raise IsADirectory(f"{uri} is a directory", hint=f"list it with {proposal('ls', uri=str(uri))}{overview}")
        with path.open("rb") as file:
            lines = FileLines.scan(file)
            if lines is None:
                raise BinaryContent(f"{uri} is not UTF-8 text", hint=f"see its size with {proposal('stat', uri=str(uri))}")
            yield lines

    def abstract(self, uri: VikingURI) -> str:
        return self._sidecar_body(uri, sidecar.ABSTRACT, "abstract (L0)")

    def overview(self, uri: VikingURI) -> str:
        return self._sidecar_body(uri, sidecar.OVERVIEW, "overview (L1)")

    def walk_files(self, uri: VikingURI, *, show_all: bool = False, leave_out: frozenset[VikingURI] = frozenset()) -> Iterator[tuple[VikingURI, Path]]:
        """Every file below ``uri`` (or ``uri`` itself when it is a file), in sorted order,
        except those below the places in ``leave_out`` and in a folder holding a git repository
        of its own (:func:`~ov.store.worktree.own_repository`: another repository's files)."""
        path = self._existing(uri)
        if path.is_file():
            yield uri, path
            return
        if uri.is_root:
            for scope in PUBLIC_SCOPES:
                yield from self.walk_files(VikingURI((scope,)), show_all=show_all, leave_out=leave_out)
            return
        # scan, not entries: an Entry costs a stat a file and a summary read a folder, which a
        # walk never uses (a large move lists its folder again under the write lock).
        for item, is_dir in self.scan(uri, show_all):
            child = VikingURI((*uri.parts, item.name))
            if child in leave_out:
                continue
            if is_dir:
                if not own_repository(child.path, item.path):
                    yield from self.walk_files(child, show_all=show_all, leave_out=leave_out)
            else:
                yield child, Path(item.path)

    # --- writing ------------------------------------------------------------

    def transaction(self) -> Transaction:
        if self.chain is not None:
            from ov.store.group_commit import ServedTransaction

            return ServedTransaction(self, self.chain)
        return Transaction(self)

    def draft(self) -> Draft:
        """A transaction planned without the write lock; see :class:`Draft`."""
        return Draft(self)

    def write(self, uri: VikingURI, data: bytes, mode: WriteMode = "replace", *, redact: bool = False) -> CommitResult:
        """Write ``data`` to the file at ``uri`` (``mode``: replace it, append to it, create it).
        ``redact``: its secrets go (a model's text, which came from its session), and an append's
        across the seam with what the file held: a key sent in two parts is whole only there."""
        self.require_file_uri(uri)
        _refuse_bookkeeping(uri)
        self._check_text(uri, data)
        if uri.name in sidecar.SIDECARS:
            sidecar.parse(data.decode("utf-8"))
        from ov.store import group_commit

        # Checked text is UTF-8, so it travels as text in a queued request.
        args = {"uri": str(uri), "text": data.decode("utf-8", "surrogateescape"), "mode": mode}
        if redact:  # only then: a holder from before the argument still serves every other write
            args["redact"] = True
        return group_commit.run(self, "write", args, group_commit.decode_commit)

    def _write(self, uri: VikingURI, data: bytes, mode: WriteMode, redact: bool = False) -> CommitResult:
        with self.transaction() as tx:
            current = tx.existing_file(uri)
            if mode == "create" and current is not None:
                raise AlreadyExists(f"{uri} already exists", hint="use {mode=replace} or {mode=append}", arguments={"mode"})
            new = (current or b"") + data if mode == "append" else data
            redacted = 0
            if redact:
                kept = current if mode == "append" and current else b""
                new, redacted = _redacted_after(new, kept)
            self._check_size(uri, new)
            if uri.name in sidecar.SIDECARS:  # what the file will hold, appended to or not
                _check_sidecar(uri, new)
                new = sidecar.by_hand(new, "write")
            tx.put(uri, new)
            return replace(tx.commit("write", [uri]), redacted=redacted)

    def edit(self, uri: VikingURI, old: str, new: str, *, replace_all: bool = False, redact: bool = False) -> tuple[CommitResult, int]:
        """Replace ``old`` with ``new`` in the file at ``uri`` (once, or each time: ``replace_all``).
        ``redact``: secrets go from what the edit put there and across its seams (``new`` that
        completes a key the text beside it began)."""
        if not old:
            raise InvalidInput("the text to replace is empty")
        _refuse_bookkeeping(uri)
        gone = NotFound(f"{uri} does not exist", hint=_parent_hint(uri))
        self.require_before_lock(uri, gone)
        with self.transaction() as tx:
            current = tx.existing_file(uri)
            if current is None:
                raise gone
            if looks_binary(current):
                raise BinaryContent(f"{uri} is not UTF-8 text")
            text = current.decode("utf-8")
            count = text.count(old)
            if count == 0:
                raise NoMatch(f"the text to replace was not found in {uri}", hint="it must match exactly, whitespace included")
            if count > 1 and not replace_all:
                raise AmbiguousMatch(f"the text to replace occurs {count} times in {uri}")
            updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
            redacted = 0
            if redact:
                from ov.redact.engine import redact_span

                # Between the first replacement and the last: the text after the last is the old text's end.
                first, last = text.find(old), (text.rfind(old) if replace_all else text.find(old)) + len(old)
                updated, redacted = redact_span(updated, first, len(updated) - (len(text) - last))
            data = updated.encode("utf-8")
            if uri.name in sidecar.SIDECARS:
                _check_sidecar(uri, data, before=current)
                data = sidecar.by_hand(data, "edit")
            tx.put(uri, data)
            return replace(tx.commit("edit", [uri]), redacted=redacted), count if replace_all else 1

    def mkdir(self, uri: VikingURI, description: str | None = None) -> CommitResult:
        self.require_content_uri(uri)
        check_new_path(uri.parts, str(uri), directory=True)  # its .abstract.md must be readable too
        if description is not None:
            sidecar.check_length(sidecar.ABSTRACT, description.strip(), what="the description")
        with self.transaction() as tx:
            path = self.path(uri)
            if path.exists():
                raise AlreadyExists(f"{uri} already exists")
            tx.require_parent_dirs(uri)
            meta = {
                "directory": sidecar.directory_uri(str(uri)),
                "generated_by": {"component": "ov", "trigger": "mkdir"},
            }
            # Parsed: the summary is held to every rule a read applies (no session id starts with '.').
            tx.put(from_path(f"{uri.path}/{sidecar.ABSTRACT}"), sidecar.render(meta, description or "").encode("utf-8"))
            return tx.commit("mkdir", [uri])

    def rm(
        self, uri: VikingURI, *, recursive: bool = False, then: Callable[[Transaction], object] | None = None, progress: Progress | None = None
    ) -> CommitResult:
        """Remove a file, or a directory with ``recursive``; ``then(tx)`` adds to the same commit
        (the content layer writes the summaries above it again). ``progress`` is told how
        checking a folder's files and committing go (:mod:`ov.progress`)."""
        if uri.is_root:
            raise InvalidInput("refusing to remove viking:// (the whole store)")
        # A scope (or a user's root) is refused like mkdir, mv and write refuse it: a one-word
        # slip of an agent must not empty every shared resource in one commit.
        self.require_content_uri(uri)
        self.require_before_lock(uri)
        with self.transaction() as tx:
            path = self._existing(uri, written=True)
            if path.is_dir():
                visible = [c for c in self.entries(uri, show_all=True) if c.entry.name not in sidecar.SIDECARS]
                if visible and not recursive:
                    raise DirectoryNotEmpty(f"{uri} is not empty ({len(visible)} entries)", hint="pass -r to remove it and everything in it")
                _refuse_strays(tx, uri, path, "removes")
                files = [u for u, _ in self.walk_files(uri, show_all=True)]
                tx.clean_tree(uri, keep=False, progress=progress)
            else:
                tx.require_clean(uri)  # a hand edit, or a file never committed, is not ov's to discard
                files = [uri]
            for file_uri in files:
                tx.delete(file_uri)
            if then is not None:
                then(tx)
            result = tx.commit("rm", [uri], progress=progress)
            if path.is_dir():
                _remove_empty_folders(path, self.root)
            return result

    def mv(
        self, source: VikingURI, target: VikingURI, *, then: Callable[[Transaction], object] | None = None, progress: Progress | None = None
    ) -> CommitResult:
        """Move a file or a directory; ``then(tx)`` adds to the same commit, as for :meth:`rm`.
        ``progress`` is told how checking, staging and committing a folder's files go.

        A folder of thousands of files takes seconds to read, check and write again, which every
        other writer would wait through (and time out in) under the write lock. So the move is
        planned in a draft and its files are staged without the lock; under it the source and
        the target are checked again as the draft checked them, only the files that changed
        since are planned again (all of them when the folder itself changed), and the rest is
        moved into place."""
        self.require_content_uri(source)
        self.require_content_uri(target)
        _refuse_bookkeeping(source)
        _refuse_bookkeeping(target)
        if target.is_within(source):
            self._existing(source, written=True)  # a source that is not there is that (NotFound), wherever the target
            if target == source:  # `ov mv DIR/x.md DIR/`: where it already is
                raise InvalidInput(f"cannot move {source} into itself: it is already there", hint="name another folder, or a new name")
            raise InvalidInput(f"cannot move {source} into itself")
        self.require_before_lock(source)
        draft: Draft | None = None
        try:
            with self.draft() as draft:
                self._plan_mv(draft, source, target, progress)
                draft.stage(progress)
        except OvError:
            draft = None  # refused without the lock: the answer under the lock is the one given
        try:
            with self.transaction() as tx:
                if draft is None or not self._replan_mv(tx, draft, source, target):
                    self._plan_mv(tx, source, target, progress)
                if then is not None:
                    then(tx)
                result = tx.commit("mv", [source, target], progress=progress)
                src_path, target_path = self.path(source), self.path(target)
                # (on macOS a rename to another Unicode form is the same folder: it stays)
                if src_path.is_dir() and not (target_path.exists() and target_path.samefile(src_path)):
                    _remove_empty_folders(src_path, self.root)
                return result
        finally:
            if draft is not None:
                draft.discard()

    def _replan_mv(self, tx: Transaction, draft: Draft, source: VikingURI, target: VikingURI) -> bool:
        """Under the lock (``tx``), take over what of ``draft``'s folder move still holds and plan
        the rest again; False when the whole move is to be planned again (nothing taken over).

        The places are checked again first, so a target (or a file where one of its folders
        goes) that appeared meanwhile gets the refusal it would have got from the start. Then
        each stale file is planned as the draft planned it, by reading it under the lock: one
        write into a folder of thousands does not read them all again."""
        stale = draft.stale(tx, source, target)
        if stale is None:
            return False
        src_path = self._mv_places(tx, source, target)
        if not stale:
            draft.hand_over(tx)
            return True
        if source.path in draft.changes or not src_path.is_dir():
            return False  # a file's move (cheap to plan again), or a folder that is one no longer
        below_source, below_target = source.path + "/", target.path + "/"
        olds = set()
        for rel in stale:
            if rel.startswith(below_source):
                olds.add(rel)
            elif rel.startswith(below_target):
                olds.add(source.path + rel[len(target.path) :])
            else:
                return False  # nothing the draft planned: it cannot say what this is
        tx.require_clean_tree(target)  # a file of it committed meanwhile, then removed by hand: as from the start
        draft.hand_over(tx)
        for rel in sorted(olds):
            file_uri = VikingURI(tuple(rel.split("/")))
            new_uri = _moved(file_uri, source, target)
            tx.changes.pop(rel, None)
            tx.changes.pop(new_uri.path, None)
            data = tx.clean_content(file_uri)  # a file made or edited by hand meanwhile is refused, as from the start
            if data is not None:
                _move_one(tx, source, target, file_uri, data)
        return True

    def _mv_places(self, tx: Transaction, source: VikingURI, target: VikingURI) -> Path:
        """The path of ``source``, which must be there, refused when ``target`` is taken or cannot be made."""
        src_path = self._existing(source, written=True)
        target_path = self.path(target)
        # A file system that does not tell Unicode forms apart (macOS) finds the source at its
        # other spelling: a rename to that spelling, not a target already taken.
        if target_path.exists() and not target_path.samefile(src_path):
            hint = "choose a target that does not exist yet"
            if target_path.is_dir():  # most likely meant as mv(1) means it: into that folder
                import shlex  # only for this hint: not on the hooks' path

                hint = f"to move it into that folder, end the target with '/': `ov mv {shlex.quote(str(source))} {shlex.quote(str(target) + '/')}`"
            raise AlreadyExists(f"{target} already exists", hint=hint)
        if src_path.is_dir():
            _refuse_strays(tx, source, src_path, "moves")
        tx.expect_absent(target)
        tx.require_parent_dirs(target)
        return src_path

    def _plan_mv(self, tx: Transaction, source: VikingURI, target: VikingURI, progress: Progress | None = None) -> None:
        src_path = self._mv_places(tx, source, target)
        if src_path.is_dir():
            contents = tx.clean_tree(source, progress=progress)
            tx.require_clean_tree(target)
            _check_moved_paths(source, target, [_moved(VikingURI(tuple(rel.split("/"))), source, target) for rel in contents])
            for rel, data in contents.items():
                _move_one(tx, source, target, VikingURI(tuple(rel.split("/"))), data)
        else:
            self.require_file_uri(target)
            data = tx.existing_file(source) or b""
            tx.require_clean(target)
            if target.name in sidecar.SIDECARS:
                if source.name != target.name:  # a file becoming a directory's summary
                    self._check_text(target, data)
                    _check_sidecar(target, data)
                data = sidecar.retarget(data, str(target.parent))
            tx.put(target, data)
            tx.delete(source)

    # --- hand edits -----------------------------------------------------------

    def status(self) -> StoreStatus:
        """Recover an interrupted commit if any, then compare the work tree with HEAD.

        The write lock is for what status writes: the recovery, the removal of what killed writers
        left, the git index brought up to date. A user who may not write to the store gets the
        comparison without them."""
        from ov.store.worktree import scan

        if not self.exists:
            return StoreStatus(self, None, None, WorktreeChanges())
        with self.quiet(sweep=True) as quiet:
            if quiet.read_only is not None:
                return StoreStatus(self, self.git.head(), None, scan(self.git, refresh_index=False), read_only=quiet.read_only)
            recovered = quiet.recovered
            changes = scan(self.git)
            if changes.temporary:
                # Under the write lock no atomic write is in flight: these were left by a kill.
                for rel in changes.temporary:
                    (self.root / rel).unlink(missing_ok=True)
                    remove_empty_parents((self.root / rel).parent, self.root)
                swept = f"removed {len(changes.temporary)} temporary file(s) of interrupted writes"
                recovered = f"{recovered}; {swept}" if recovered else swept
        return StoreStatus(self, self.git.head(), recovered, changes)

    @contextmanager
    def quiet(self, *, sweep: bool = False) -> Iterator[Quiet]:
        """The work tree as no write leaves it half applied, for a command that compares it with
        HEAD (`ov status`, `ov snapshot diff`): held under the write lock, waited for as a writer
        waits (``store.lock_timeout``, then :class:`StoreLocked`), with a commit a crash
        interrupted finished or undone first and what killed writers left swept. Without the
        lock, a large restore moving its files into place reads as thousands of hand edits.

        ``sweep``: `ov status`'s look for what a crash left (:meth:`GitStore.recover`), which it
        says in its own output; otherwise what was recovered is said on stderr, as a writer says
        it. A user the system does not let write to the store gets the work tree as it is, with
        ``read_only`` saying why."""
        lock = self.write_lock()
        try:
            lock.acquire()
        except StoreNotWritable as exc:
            pending = "; an interrupted commit is pending" if (self.state / JOURNAL_NAME).exists() else ""
            yield Quiet(None, exc.message + pending)
            return
        try:
            recovered = self.git.recover(sweep=sweep)
            if not sweep:
                _report_recovery(recovered)
            lock.sweep_queue()
            yield Quiet(recovered)
        finally:
            lock.release()

    def snapshot_commit(self, message: str) -> CommitResult:
        """Record every hand edit of the work tree as one commit (none when clean). ``message``
        is read as git reads one: its first paragraph the subject, the rest its body."""
        from ov.store.worktree import read_changes, scan

        subject, body = message_parts(message)
        if not subject:
            raise InvalidInput("a snapshot needs a message", hint="pass -m MESSAGE")
        if not self.exists and not (self.root.is_dir() and any(self.root.iterdir())):
            return CommitResult("snapshot commit", (), None)  # no store, no edit: none is made to say so
        with self.transaction() as tx:
            changes = scan(self.git, refresh_index=False)
            for rel, data in read_changes(self.git, changes).items():
                tx.changes[rel] = data
            uris = [VikingURI(tuple(p.split("/"))) for p in changes.changed_paths]
            result = tx.commit("snapshot commit", uris, subject=subject, body=body)
        scan(self.git)  # the index now matches the new HEAD
        return result

    # --- helpers ------------------------------------------------------------

    @property
    def _init_message(self) -> str:
        return commit_message("init", [], f"ov init: account {self.identity.account}", via=self.via)

    @property
    def lock_path(self) -> Path:
        return self.state / "write.lock"

    def write_lock(self, timeout: float | None = None) -> WriteLock:
        """The account's write lock, not taken yet (``timeout``: the configured one). A writer
        may be the first under the home: the lock makes its folders through the home's :meth:`~ov.home.Home.ensure`."""
        return WriteLock(self.lock_path, self.config.store.lock_timeout if timeout is None else timeout, home=self.home, stop=self.stop)

    def make_repo(self) -> bool:
        """Create the account's repository (under the write lock); False when it exists. Its
        folder (and ``accounts/``) is made private, when this makes it."""
        self.home.ensure(self.root)
        return self.git.init(self.author, self._init_message)

    def require_before_lock(self, uri: VikingURI, gone: NotFound | None = None) -> None:
        """For a command that changes what is at ``uri`` (rm, mv, edit, forget), before it takes
        the write lock: in an account with no repository, where nothing ``uri`` names is on disk,
        it fails now, as :class:`AccountNotFound` when the home holds other accounts (a mistyped
        ``--account``), else as ``gone`` (default: :meth:`require`'s NotFound). Under the lock it
        would fail the same, but the lock's folder (``state/ACCOUNT``) would stay behind, and a
        lock file cannot be removed once made: a writer waiting for it may hold it open. Race-free
        for a writer that creates the account meanwhile: this command is ordered before it. With
        a repository, the check under the lock is the one that counts."""
        if self.exists:
            return
        try:
            self._existing(uri, written=True)
        except NotFound as exc:
            raise (self.missing_account() or gone or exc) from None

    def require(self, uri: VikingURI) -> None:
        """NotFound, saying where to look, when nothing is at ``uri`` (the root, the scopes and
        the standing folders always are)."""
        self._existing(uri)

    def _existing(self, uri: VikingURI, *, written: bool = False) -> Path:
        """The path of what is at ``uri``; NotFound when nothing is. The root, the scopes and the
        standing folders (:func:`~ov.uri.standing_folder`) are always there, as directories, even
        before anything was written to them (their folders are then missing: ask :func:`_is_dir`,
        not the path); ``written``: only a standing folder that is on disk, for the commands that
        change what is there (rm, mv), which have nothing to act on in one never written."""
        path = self.path(uri)
        if _always_there(uri):
            return path
        try:
            mode = os.lstat(path).st_mode
        except OSError:  # missing, or under a file
            mode = None
        place = file_place_problem(uri) if mode is not None and not stat_mod.S_ISDIR(mode) else None
        if place is not None:
            # A file where a user's folder goes (its root, its memories, a session's folder) is
            # not in the store (users.py; `ov status` ignores it): never read as one.
            raise NotFound(f"{uri} is {place}, and the file there is not in the store", hint="`ov status` lists it as ignored; move it by hand")
        if mode is None and not written and standing_folder(uri):
            return path
        if mode is None or path.name.startswith(TEMP_MARKER) or stat_mod.S_ISLNK(mode):
            raise NotFound(f"{uri} does not exist", hint=_parent_hint(uri))
        _refuse_special(uri, mode)  # never opened: reading a named pipe blocks for ever
        return path

    def _require_dir(self, uri: VikingURI) -> Path:
        path = self._existing(uri)
        if not _is_dir(uri, path):
            raise NotADirectory(f"{uri} is a file", hint=f"read it with {proposal('read', uri=str(uri))}")
        return path

    def entries(self, uri: VikingURI, show_all: bool, leave_out: frozenset[VikingURI] = frozenset()) -> Iterator[Child]:
        """The children of a directory in name order, but those in ``leave_out``; names that are not
        valid URI segments are skipped."""
        path = self.path(uri)
        if uri.is_root:
            for scope in PUBLIC_SCOPES:
                scope_uri = VikingURI((scope,))
                yield Child(self._entry(scope_uri, path / scope, is_dir=True), path / scope, scope_uri)
            return
        for item, is_dir in self.scan(uri, show_all):
            child_uri = VikingURI((*uri.parts, item.name))
            if child_uri in leave_out:
                continue
            yield Child(self._entry(child_uri, Path(item.path), is_dir=is_dir, dirent=item), Path(item.path), child_uri)

    def scan(self, uri: VikingURI, show_all: bool = False) -> Iterator[tuple[os.DirEntry, bool]]:
        """(directory entry, is a directory) of each child :meth:`entries` lists below a
        directory other than the root, in name order, without reading anything of theirs."""
        try:
            with os.scandir(self.path(uri)) as it:
                items = sorted(it, key=lambda d: d.name)
        except (FileNotFoundError, NotADirectoryError):
            return
        # A file where a user's folder goes (directly in viking://user, a user's memories or
        # sessions, a session's folder) is in nobody's space and not in the store (`ov status`
        # lists it as ignored), so no listing, walk or count meets it. Only these depths of
        # viking://user hold such places: elsewhere no name is looked at.
        places = uri.scope == "user" and len(uri.parts) <= 3
        for item in items:
            name = item.name
            if TEMP_MARKER in name or item.is_symlink():
                continue
            is_dir = item.is_dir(follow_symlinks=False)
            if not (is_dir or item.is_file(follow_symlinks=False)):
                continue  # a named pipe, socket or device: no git tree can hold one (`ov status` lists it)
            if places and not is_dir and file_place_problem(VikingURI((*uri.parts, name))) is not None:
                continue
            if (name.startswith(".") and not show_all) or not is_stored_segment(name):
                continue
            yield item, is_dir

    def _entry(self, uri: VikingURI, path: Path, *, is_dir: bool, dirent: os.DirEntry | None = None) -> Entry:
        try:
            st = dirent.stat(follow_symlinks=False) if dirent is not None else path.stat()
        except FileNotFoundError:
            return Entry(str(uri), uri.name, "directory" if is_dir else "file")
        if is_dir:
            abstract = None
            try:
                abstract = sidecar.body((path / sidecar.ABSTRACT).read_text(encoding="utf-8")) or None
            except (OSError, UnicodeDecodeError, InvalidInput):
                pass
            return Entry(str(uri), uri.name, "directory", None, _iso(st.st_mtime), abstract)
        return Entry(str(uri), uri.name, "file", st.st_size, _iso(st.st_mtime))

    def _fill_tree(self, node: TreeNode, uri: VikingURI, depth: int | None, show_all: bool, leave_out: frozenset[VikingURI]) -> None:
        if depth is not None and depth <= 0:
            node.truncated = any(True for _ in self.entries(uri, show_all, leave_out))
            return
        for child in self.entries(uri, show_all, leave_out):
            entry = child.entry
            sub = TreeNode(entry.uri, entry.name, entry.type)
            if entry.is_dir and not own_repository(child.uri.path, child.path):
                self._fill_tree(sub, child.uri, None if depth is None else depth - 1, show_all, leave_out)
            node.children.append(sub)

    def _sidecar_body(self, uri: VikingURI, name: str, label: str) -> str:
        path = self._existing(uri)
        command = label.split()[0]
        if not _is_dir(uri, path):
            raise NotADirectory(f"{uri} is a file; an {label} belongs to a directory", hint=f"try {proposal(command, uri=str(uri.parent))}")
        if uri.is_root:
            raise NotFound(f"the root has no {label}", hint=f"each scope has its own: {proposal(command, uri='viking://resources')}")
        try:
            return sidecar.body((path / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            place = uri.child(name)
            if file_place_problem(place) == A_USER_ROOT:  # viking://user: nothing may be written there but users' folders
                place = VikingURI(("user", self.identity.user, name))
                hint = f"viking://user holds one folder per user and has none of its own; a user's folder may: {proposal('write', uri=str(place), content=...)}"
            else:  # not `ov mkdir --description`, which refuses a directory that is there
                hint = f"write one with {proposal('write', uri=str(place), content=...)}"
            raise NotFound(f"{uri} has no {label}", hint=hint) from None

    def _file_state(self, uri: VikingURI, blob_id: bytes) -> str:
        """Whether the file at ``uri``, whose content has ``blob_id``, is as HEAD holds it."""
        git = self.git
        found = git.entry(git.tree_of(git.head()), uri.path)
        if found is None:
            return "untracked"
        return "committed" if found[1] == blob_id else "modified"

    def require_content_uri(self, uri: VikingURI) -> None:
        self._require_place(uri, file_place_problem(uri))

    def require_file_uri(self, uri: VikingURI) -> None:
        problem = file_place_problem(uri)
        self._require_place(uri, problem)
        if problem == A_USER_FOLDER:
            raise IsADirectory(f"{uri} is reserved for a directory")
        if problem == A_SESSION_FOLDER:
            # A plain file there would make the session unusable (`ov session add` could no
            # longer create its files).
            raise IsADirectory(f"{uri} is {problem}", hint="capture messages with `ov session add`; write files elsewhere")

    @staticmethod
    def _require_place(uri: VikingURI, problem: str | None) -> None:
        if problem == A_SCOPE:
            raise InvalidInput(f"{uri} is a scope; name a path inside it", hint="for example viking://resources/notes")
        if problem == A_USER_ROOT:
            raise InvalidInput(f"{uri} is a user's root; name a path inside it", hint="for example viking://~/resources/notes")

    def _check_text(self, uri: VikingURI, data: bytes) -> None:
        problem = content_problem(data)
        if problem:
            raise BinaryContent(f"the content for {uri} {problem}", hint="ov stores text; convert the file first")
        self._check_size(uri, data)

    def _check_size(self, uri: VikingURI, data: bytes) -> None:
        limit = self.config.store.max_file_bytes
        if len(data) > limit:
            raise InvalidInput(
                f"{uri} would be {len(data)} bytes, over the {limit}-byte limit",
                hint="raise store.max_file_bytes with `ov config set` if this is intended",
            )


@dataclass(frozen=True)
class StoreStatus:
    """The store's state against HEAD: what changed by hand, and what was recovered."""

    store: Store
    head: bytes | None
    recovered: str | None
    changes: WorktreeChanges
    read_only: str | None = None  # why nothing was recovered or swept: ov may not write to the store


class Quiet(NamedTuple):
    """What :meth:`Store.quiet` did before it handed over the work tree."""

    recovered: str | None  # what a crash left that was finished, undone or removed
    read_only: str | None = None  # why the work tree is read without the lock: ov may not write to the store


class Transaction:
    """Collects the changes of one command and turns them into one commit."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.git = store.git
        self.changes: dict[str, bytes | None] = {}
        self.appends: dict[str, int] = {}  # path -> length of the file the change appends to
        self._lock = store.write_lock()
        self.head: bytes | None = None
        self.tree: bytes | None = None
        self.recovered: str | None = None
        self._dirs_ok: set[str] = set()
        self._early = None
        self.staged = None  # files written ahead by a Draft (see GitStore.stage)
        self.made = False  # this transaction created the account's repository
        self.adopting: tuple[str, ...] = ()  # path prefixes whose hand edits are built on (adopt_hand_edits)
        self.adopted: set[str] = set()  # paths read with a hand edit below them

    def __enter__(self) -> Transaction:
        self.git.warm_up()
        self._lock.acquire()
        self.store._settled = True
        try:
            if not self.git.exists:
                self.made = self.store.make_repo()
                if self.made:
                    # Objects a draft stored ahead went into a repository that was discarded
                    # since (another command's first write that failed): the commit writes its own.
                    self.git.forget_ahead()
            self.recovered = self.git.recover()
            _report_recovery(self.recovered)
            self.git.sweep_discarded()
            self._lock.sweep_queue()
            self.head = self.git.head()
            self.tree = self.git.tree_of(self.head)
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if self._early is not None:
                self.git.abandon_early(self.head, self._early)  # failed before its commit
            if self.made:
                # The account's first command failed (a typo in --account, a file that is not
                # there) or found nothing to change (a dry run, nothing to refile): no commit, so
                # no account either, or the next read would find it empty.
                self.git.discard_unless_moved(self.head)
        finally:
            try:
                if self.staged is not None:
                    self.staged.release()
                    self.staged = None
                if self._lock.outermost and (exc_type is None or issubclass(exc_type, OvError)):
                    from ov.store.group_commit import serve

                    serve(self.store, self._lock)  # the small writes queued behind this one
            finally:
                self._lock.release()

    def write_ahead(self) -> None:
        """Start writing the changes so far to the work tree while the command goes on.

        For large adds: file creation overlaps with the work before :meth:`commit`.
        Call it again to send later changes ahead too. Later changes to the same paths
        still win. The first call deletes the files it removes at once (a file must go before
        a folder of its name is written); a later call sends new contents only, its
        deletions wait for the commit. Safe either way: the journal names every path first,
        so a failure (or a crash, at the next recovery) puts HEAD's files back.
        """
        if self.changes:
            self._early = self.git.apply_early(self.head, dict(self.changes), self._early)

    def file_names(self, uri: VikingURI) -> list[str]:
        """The names of the files directly in directory ``uri`` as this command sees it: the work
        tree's, with this command's pending changes (sorted; none for a directory not there)."""
        try:
            names = {entry.name for entry in os.scandir(self.store.path(uri)) if entry.is_file(follow_symlinks=False)}
        except (FileNotFoundError, NotADirectoryError):
            names = set()
        names_with_changes(names, uri.path, self.changes)
        return sorted(names)

    # Content as this command sees it: pending changes first, then the work tree.
    def existing_file(self, uri: VikingURI, path: Path | None = None) -> bytes | None:
        """``uri``'s content as this command sees it; ``path``: its :meth:`Store.path`, when the
        caller has it (each check of it is a walk of its folders: once per file, not per step)."""
        if path is None:
            path = self.store.path(uri)
        if uri.path in self.changes:
            return self.changes[uri.path]
        try:
            _refuse_special(uri, os.stat(path).st_mode)  # read_bytes below would block on a pipe
        except OSError:
            pass  # missing: the read below says so
        if path.is_dir():
            raise IsADirectory(f"{uri} is a directory", hint="name a file inside it")
        self.require_parent_dirs(uri)
        self.clean_content(uri, path=path)  # as require_clean, with the path already checked
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def expect_absent(self, uri: VikingURI) -> None:
        """The plan holds only while nothing is at ``uri`` (a move's target). Under the lock
        nothing is planned ahead, so there is nothing to note (see :class:`Draft`)."""

    def require_parent_dirs(self, uri: VikingURI) -> None:
        parent = uri.parent
        while parent is not None and not parent.is_root and parent.path not in self._dirs_ok:
            path = self.store.path(parent)
            if path.exists() and not path.is_dir():
                raise NotADirectory(f"{parent} is a file, so {uri} cannot be created under it")
            self._dirs_ok.add(parent.path)  # checked once per transaction (large adds share parents)
            parent = parent.parent

    def require_clean(self, uri: VikingURI) -> None:
        """Refuse to touch a path whose work-tree file differs from HEAD (a hand edit)."""
        self.clean_content(uri)

    def clean_content(self, uri: VikingURI, committed: tuple[int, bytes] | None | bool = True, path: Path | None = None) -> bytes | None:
        """The work-tree content of ``uri`` (None when no file is there), refused when it differs
        from HEAD (a hand edit). ``committed``: its (mode, blob id) in HEAD when the caller knows
        it (None: not in HEAD); looked up otherwise. ``path``: as for :meth:`existing_file`."""
        if path is None:
            path = self.store.path(uri)
        if committed is True:
            committed = self.git.entry(self.tree, uri.path)
        try:
            data = path.read_bytes() if path.is_file() else None
        except FileNotFoundError:
            data = None
        if committed is None and data is None:
            return None
        if committed is not None and data is not None and self.git.blob_id(data) == committed[1]:
            return data
        if committed is not None and stat_mod.S_ISDIR(committed[0]):
            return data
        if committed is None and not recorded(uri.path, lambda folder: self.git.entry(self.tree, folder) is not None):
            # Named as ov never names a new file ("odd "): a snapshot commit would not record it
            # (`ov status`: ignored), so keeping it that way cannot work.
            self._hand_edit(
                HandEditConflict(
                    f"{quote(str(uri))} was created outside ov since the last commit (a file named as no URI can name it)",
                    hint="ov never records a new file named so (`ov status` lists it as ignored): move or remove it by hand, then retry",
                ),
                uri,
            )
            return data
        what = "created" if committed is None else ("deleted" if data is None else "changed")
        self._hand_edit(
            HandEditConflict(
                f"{uri} was {what} outside ov since the last commit",
                hint="keep the edit with `ov snapshot commit -m MESSAGE` (see `ov status`), then retry",
            ),
            uri,
        )
        return data

    def adopt_hand_edits(self, *scopes: VikingURI) -> None:
        """Read a hand edit below ``scopes`` as the file's content instead of refusing it; the
        paths are noted in :attr:`adopted`. A command that writes such a file then commits the
        edit with its own change, and must say so: a session commit merges memories into a
        profile the user edited rather than losing them (ov.sessions.commit)."""
        self.adopting = tuple(scope.path + "/" for scope in scopes)

    def _hand_edit(self, error: HandEditConflict, uri: VikingURI) -> None:
        if uri.path.startswith(self.adopting):
            self.adopted.add(uri.path)
            return
        raise error

    def require_clean_tree(self, uri: VikingURI) -> None:
        self.clean_tree(uri, keep=False)

    def clean_tree(self, uri: VikingURI, keep: bool = True, progress: Progress | None = None) -> dict[str, bytes]:
        """Every file below ``uri`` in the work tree, path -> content (with ``keep``), refused
        when any file there or in HEAD differs from HEAD: one read of each file serves both the
        check and the caller (a move of 20,000 files read each twice). ``progress`` is told
        how reading them goes (:mod:`ov.progress`)."""
        committed = {p: (FILE_MODE, sha) for p, sha in self.git.iter_files(self.tree, uri.path)}
        present = self.files_below(uri)
        out = {}
        for rel in counting(sorted(committed.keys() | present), progress, CHECKING):
            data = self.clean_content(VikingURI(tuple(rel.split("/"))), committed.get(rel))
            if keep and data is not None and rel in present:
                out[rel] = data
        return out

    def files_below(self, uri: VikingURI) -> set[str]:
        """The paths of the files below directory ``uri`` in the work tree (none when it is not one)."""
        if not self.store.path(uri).is_dir():
            return set()
        return {file_uri.path for file_uri, _ in self.store.walk_files(uri, show_all=True)}

    def put(self, uri: VikingURI, data: bytes) -> None:
        self.changes[uri.path] = data
        self.appends.pop(uri.path, None)

    def append(self, uri: VikingURI, current: bytes, suffix: bytes) -> None:
        """Like ``put(uri, current + suffix)``, but the work-tree file is appended to, not rewritten."""
        self.changes[uri.path] = current + suffix
        self.appends[uri.path] = len(current)

    def delete(self, uri: VikingURI) -> None:
        self.changes[uri.path] = None
        self.appends.pop(uri.path, None)

    def commit(
        self,
        command: str,
        uris: list[VikingURI],
        subject: str | None = None,
        progress: Progress | None = None,
        *,
        hand_edits: Sequence[str] = (),
        body: str = "",
        reverts: str = "",
    ) -> CommitResult:
        """Commit the changes collected; ``progress`` is told how writing their files goes (:mod:`ov.progress`).
        ``hand_edits``: the URIs of files whose hand edit this commit takes in (see :meth:`adopt_hand_edits`);
        ``body``: the message's paragraphs after the subject; ``reverts``: the full id of the commit
        this one takes back (see :func:`commit_message`)."""
        # A name HEAD held that is not UTF-8 (a snapshot commit drops it) is named with its bytes escaped.
        texts = [shown(str(u)) for u in uris]
        message = commit_message(
            command, texts, subject, via=self.store.via, hand_edits=[shown(str(u)) for u in hand_edits], body=body, reverts=reverts
        )
        early, self._early = self._early, None
        commit = self.git.commit(
            self.changes, message, self.store.author, self.head, early, self.appends, self.staged, defer_index=self._lock.others_waiting(), progress=progress
        )
        self.changes = {}
        self.appends = {}
        if commit:
            self.store.commits.append(commit.decode())
        return CommitResult(command, tuple(texts), commit.decode() if commit else None)


def names_with_changes(names: set[str], directory: str, changes: dict[str, bytes | None]) -> None:
    """``names`` (of the files in ``directory``) with ``changes`` (path -> content, None: deleted) applied."""
    prefix = directory + "/"
    for path, data in changes.items():
        if path.startswith(prefix) and "/" not in path[len(prefix) :]:
            (names.add if data is not None else names.discard)(path[len(prefix) :])


class Draft(Transaction):
    """The changes of a slow command, planned without the write lock.

    A large add spends seconds reading, laying out and summarising; holding the lock all that
    time makes every hook of every other session wait (or time out). A draft collects the
    changes like a transaction, against HEAD as it was, and notes what each file it read
    looked like on disk. Under the lock, :meth:`still_holds` checks that no commit since then
    touched the given scopes or a path the draft changes, and that no file it read was edited; if so
    :meth:`hand_over` moves the changes into the locked transaction, else the command plans
    again under the lock. A draft never touches the work tree or the branch: what it writes
    ahead (staged files, unreferenced objects) is discarded or harmless when the plan is dropped.
    """

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._seen: dict[str, tuple[int, int, int] | None] = {}
        # paths that differed from HEAD while the draft looked, and what the lock's check would say
        self._doubtful: dict[str, HandEditConflict] = {}
        self._listed: dict[str, set[str]] = {}  # folder -> the names in it of the files (and folders of files) the draft found

    def __enter__(self) -> Draft:
        if self.git.exists:
            self.head = self.git.head()
            self.tree = self.git.tree_of(self.head)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.discard()

    def existing_file(self, uri: VikingURI, path: Path | None = None) -> bytes | None:
        if path is None:
            path = self.store.path(uri)
        if uri.path not in self.changes and uri.path not in self._seen:
            self._seen[uri.path] = _signature(path)
        return super().existing_file(uri, path)

    def clean_content(self, uri: VikingURI, committed: tuple[int, bytes] | None | bool = True, path: Path | None = None) -> bytes | None:
        # What the file looked like is noted before it is read, so an edit made while it is
        # read shows as a change under the lock.
        if path is None:
            path = self.store.path(uri)
        if uri.path not in self._seen and uri.path not in self.changes:
            self._seen[uri.path] = _signature(path)
        return super().clean_content(uri, committed, path)

    def files_below(self, uri: VikingURI) -> set[str]:
        # A file made in the folder once it is listed (by hand, or by a writer that committed
        # before the draft's HEAD was compared) was never read, so no signature notes it, and a
        # move left it behind (a review). What each folder held is noted by name: under the lock
        # one listdir a folder finds what is new (see stale), not a walk of thousands of files.
        found = super().files_below(uri)
        self._listed.setdefault(uri.path, set())
        for path in found:
            folder, _, name = path.rpartition("/")
            while name not in self._listed.setdefault(folder, set()):
                self._listed[folder].add(name)
                if folder == uri.path:
                    break
                folder, _, name = folder.rpartition("/")
        return found

    def expect_absent(self, uri: VikingURI) -> None:
        # A file made at a move's target while the draft is staged would be replaced by the
        # move without a word (a review): noted as absent, it shows as a change under the lock.
        self._seen.setdefault(uri.path, None)

    def _hand_edit(self, error: HandEditConflict, uri: VikingURI) -> None:
        # Without the lock, a file that differs from HEAD may be another writer's commit being
        # applied right now, not a hand edit: that path is planned again under the lock, where
        # the check is the real one. Where hand edits are adopted, the plan stands instead: such
        # a commit moves HEAD over the path, and a rollback rewrites the file, so either shows
        # under the lock (the path is in _seen), and a model is not asked twice.
        if uri.path.startswith(self.adopting):
            self.adopted.add(uri.path)
            return
        self._doubtful.setdefault(uri.path, error)

    def require_clean_plan(self) -> None:
        """Refuse the first hand edit the draft found, as the check under the lock would: for a
        plan that is only shown (a dry run), which never takes the lock."""
        if self._doubtful:
            raise next(iter(self._doubtful.values()))

    def write_ahead(self) -> None:
        """Start writing the changes so far to the staging folder: nothing reaches the work
        tree before the lock is held, but the files are ready to be renamed into it."""
        if self.git.exists and len(self.changes) >= STAGE_THRESHOLD:
            self.staged = self.git.stage(self.changes, self.staged)

    def stage(self, progress: Progress | None = None) -> None:
        """Stage whatever is not yet, and store the new objects, before the lock is taken.
        ``progress`` is told how writing the staged files goes (:mod:`ov.progress`)."""
        self.write_ahead()
        if self.staged is not None:
            if progress is not None:
                progress(STAGING, 0, len(self.staged.futures))  # the objects are stored first
            self.git.store_objects_ahead(self.changes, self.tree)
            # The staged files are written now, not while the lock is held: writing 3,000 files
            # takes a second or more, renaming them into place a fraction of that.
            self.staged.wait(progress)

    def commit(self, command: str, uris: list[VikingURI], subject: str | None = None, progress: Progress | None = None) -> CommitResult:
        raise TypeError("a draft is committed through Draft.hand_over into a locked transaction")

    def still_holds(self, tx: Transaction, *scopes: VikingURI) -> bool:
        """Whether the whole plan holds under the lock (``tx``): see :meth:`stale`."""
        return self.stale(tx, *scopes) == set()

    def stale(self, tx: Transaction, *scopes: VikingURI) -> set[str] | None:
        """The paths whose plan no longer holds under the lock (``tx``): changed by a commit since
        the draft (below ``scopes``, the root's being everything, or changed or read by the
        draft), edited on disk since the draft read them, found below a folder the draft listed
        but not by it, or found differing from HEAD by the draft. None when nothing of the plan
        holds (the repository was made again since).

        A command whose plan is path by path (a restore, a folder's move) plans only these again
        under the lock; the others plan everything again unless the set is empty (:meth:`still_holds`)."""
        if tx.made and self.head is not None:
            return None  # planned in a repository that was discarded since: plan again in this one
        if tx.head != self.head and (self.head is None or tx.head is None):
            return None
        stale = set(self._doubtful)
        if tx.head != self.head:
            prefixes = tuple(scope.path + "/" if scope.parts else "" for scope in scopes)
            for path in self.git.changed_paths(self.tree, tx.tree):
                if any(path == scope.path or scope.path.startswith(path + "/") for scope in scopes if scope.parts):
                    return None  # a commit at a scope itself or above it (a file where its folder was): nothing holds
                if path.startswith(prefixes) or path in self.changes or path in self._seen:
                    stale.add(path)
        root = str(self.store.root)
        # A file that was absent is still absent when its folder is: a new import root's
        # thousands of files are checked with one lstat a folder, not one each.
        missing: dict[str, bool] = {}

        def unchanged(path: str, seen: tuple[int, int, int] | None) -> bool:
            if seen is None:
                folder = os.path.dirname(path)
                if folder not in missing:
                    missing[folder] = bool(folder) and not os.path.lexists(os.path.join(root, folder))
                if missing[folder]:
                    return True
            return _signature(os.path.join(root, path)) == seen

        stale.update(path for path, seen in self._seen.items() if path not in stale and not unchanged(path, seen))
        for folder, names in self._listed.items():
            try:
                new = set(os.listdir(os.path.join(root, folder))) - names
            except (FileNotFoundError, NotADirectoryError):
                continue  # gone, or a file now: what the draft read there is noted as changed
            if new:  # what walk_files lists of it (an odd name, a symbolic link are no files of the store)
                folder_uri = VikingURI(tuple(folder.split("/")) if folder else ())
                for item, is_dir in self.store.scan(folder_uri, show_all=True):
                    if item.name in new:
                        child = VikingURI((*folder_uri.parts, item.name))
                        stale.update(super().files_below(child) if is_dir else (child.path,))
        return stale

    def hand_over(self, tx: Transaction) -> None:
        tx.changes.update(self.changes)
        tx.adopted |= self.adopted
        tx.appends.update(self.appends)
        tx.staged, self.staged = self.staged, None

    def discard(self) -> None:
        """Drop what was staged (the plan no longer holds, or the command failed)."""
        self.git.forget_ahead()
        if self.staged is not None:
            self.staged.release()
            self.staged = None


def _signature(path: Path | str) -> tuple[int, int, int] | None:
    """What a file looked like (change time, size, inode), or None when it is absent."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class _Hashed:
    """A binary file whose bytes go to ``digest`` as they are read."""

    def __init__(self, file, digest) -> None:
        self.file = file
        self.digest = digest

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        self.digest.update(data)
        return data


def line_span(uri: object, total: int, start: int | None, end: int | None) -> tuple[int, int]:
    """The first and last line that ``start``:``end`` (:func:`parse_line_range`) asks of a file
    of ``total`` lines; InvalidInput for a range it does not have. The last is ``first - 1``
    when the range holds no line."""
    first = 1 if start is None else start
    last = total if end is None else min(end, total)
    if first < 1 or (end is not None and end < first):
        # Said as the user wrote it: `-l 0` is (0, 0) here, and "0:0" is not what was typed.
        given = str(start) if start == end else f"{'' if start is None else start}:{'' if end is None else end}"
        raise InvalidInput(f"invalid line range {given}", hint="lines count from 1; use START:END, START:, :END or N")
    if first > total and total:
        raise InvalidInput(f"{uri} has {total} lines; line {first} does not exist")
    return first, last


def parse_line_range(text: str | None) -> tuple[int | None, int | None]:
    """``(start, end)`` of a line range as people write it: ``START:END``, ``START:``, ``:END``, ``N``."""
    if text is None:
        return None, None
    if text.strip().startswith("-"):
        # Read as START-END, `-1` was `:1`, the first line, for someone who asked for the last.
        raise InvalidInput(f"invalid line range {text!r}: lines count from 1, from the top", hint="use START:END, START:, :END or N; `| tail -n N` gives the last N lines")
    value = text.strip().replace("-", ":", 1) if ":" not in text else text.strip()
    try:
        if ":" not in value:
            n = int(value)
            return n, n
        first, last = value.split(":", 1)
        return (int(first) if first else None, int(last) if last else None)
    except ValueError:
        raise InvalidInput(f"invalid line range {text!r}", hint="use START:END, START:, :END or N") from None


def locked_write(store: Store, uri: str, text: str, mode: WriteMode, redact: bool = False) -> CommitResult:
    """The locked step of :meth:`Store.write` (checked before the lock), as a queued request runs it."""
    return store._write(store.uri(uri), text.encode("utf-8", "surrogateescape"), mode, redact)


def _redacted_after(data: bytes, kept: bytes) -> tuple[bytes, int]:
    """``data``, which is ``kept`` and then what a write put after it, with the secrets redacted
    in what the write put there and across the seam (:func:`ov.redact.engine.redact_span`)."""
    from ov.redact.engine import redact_span

    text = data.decode("utf-8", "surrogateescape")
    redacted, count = redact_span(text, len(kept.decode("utf-8", "surrogateescape")), len(text))
    return (redacted.encode("utf-8", "surrogateescape"), count) if count else (data, 0)


def trailers(commit) -> list[tuple[str, str]]:
    """The ``Ov-*: value`` lines ov writes in its commit messages (:func:`commit_message`), in order:
    those of the message's last paragraph, where ov writes them, so that a line of a user's body
    (``ov snapshot commit -m``) that starts "Ov-" is not read as one."""
    return [(k, v.strip()) for k, _, v in (line.partition(":") for line in message_paragraphs(commit)[-1].splitlines() if line.startswith("Ov-"))]


def message_paragraphs(commit) -> list[str]:
    """The paragraphs of a commit's message (at least one, maybe empty)."""
    return commit.message.decode("utf-8", "replace").strip("\n").split("\n\n")


def message_parts(message: str) -> tuple[str, str]:
    """(subject, body) of a commit message a user wrote, as git reads one: its first paragraph
    the subject, the paragraphs after it the body. Cleaned as ``git commit -m`` cleans it: the
    whitespace at the ends of its lines dropped, a run of empty lines made one, none at the
    start or the end. The subject's line breaks become spaces in :func:`commit_message`."""
    lines = [line.rstrip() for line in message.splitlines()]
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    paragraphs = [p for p in paragraphs if p]
    if not paragraphs:
        return "", ""
    return "\n".join(paragraphs[0]), "\n\n".join("\n".join(p) for p in paragraphs[1:])


def commit_message(
    command: str,
    uris: list[str],
    subject: str | None = None,
    *,
    via: str | None = None,
    hand_edits: Sequence[str] = (),
    body: str = "",
    reverts: str = "",
) -> str:
    """``ov CMD URI...`` as the subject; ``body`` (a user's words: a snapshot commit's message
    after its first paragraph) after it; machine-readable trailers in the last paragraph
    (``Ov-Via``: the adapter that wrote, when known; ``Ov-Reverts``: the full id of the commit a
    revert takes back, which its subject names by its first digits only, as git's "This reverts
    commit ..." line does; ``Ov-Hand-Edit``: a file whose edit by hand the commit took in, so
    that the log does not give the user's lines to the command's adapter). Only that last paragraph is read for trailers (:func:`ov.history.snapshots.trailers`),
    so a line of the body that starts "Ov-" is the user's text, not a trailer."""
    if subject is None:
        shown = " ".join(uris[:3])
        more = f" (+{len(uris) - 3} more)" if len(uris) > 3 else ""
        subject = f"ov {command} {shown}{more}".rstrip()
    # A subject is the message's first line: a line break in it (a message given by a user, a
    # revision read from a file) would cut it in two, and a later line starting "Ov-" would be
    # read as a trailer. Each break, of any kind str.splitlines knows, becomes one space.
    subject = " ".join(line.strip() for line in subject.splitlines() if line.strip())
    trailers = [f"Ov-Command: {command}"] + ([f"Ov-Via: {via}"] if via else []) + ([f"Ov-Reverts: {reverts}"] if reverts else [])
    trailers += [f"Ov-Uri: {u}" for u in uris[:MAX_TRAILER_URIS]]
    if len(uris) > MAX_TRAILER_URIS:
        trailers.append(f"Ov-Uri-More: {len(uris) - MAX_TRAILER_URIS}")
    trailers += [f"Ov-Hand-Edit: {u}" for u in hand_edits[:MAX_TRAILER_URIS]]
    body = body.strip("\n")
    return subject + "\n\n" + (body + "\n\n" if body else "") + "\n".join(trailers) + "\n"


def via_text(via: str | None) -> str | None:
    """``via`` as one trailer value: words of printable text, at most :data:`MAX_VIA` characters.
    An MCP client names itself (``clientInfo.name``), so its name is untrusted text."""
    if not via:
        return None
    text = " ".join("".join(c if c.isprintable() else " " for c in via).split())[:MAX_VIA].rstrip()
    return text or None


def _spelled_otherwise(directory: str, name: str) -> str | None:
    """The entry of ``directory`` that is ``name`` (NFC) in another Unicode normal form, or None."""
    if name.isascii():
        return None  # every form of an ASCII name is itself
    try:
        with os.scandir(directory) as it:
            found = sorted(entry.name for entry in it if nfc(entry.name) == name)
    except OSError:  # missing, a file, or unreadable: no other spelling to find there
        return None
    return found[0] if found else None


def _report_recovery(recovered: str | None) -> None:
    if recovered:
        # Said on the "ov" logger. The CLI configures no logging (importing it costs every command a
        # few ms), so Python's last-resort handler prints the line on stderr; hooks and the MCP
        # server give the logger a handler of their own.
        import logging

        logging.getLogger("ov").warning("recovered: %s", recovered)


def _refuse_special(uri: VikingURI, mode: int) -> None:
    kind = special_kind(mode)
    if kind:
        raise NotRegularFile(f"{uri} is a {kind}, not a file")


def _refuse_strays(tx: Transaction, uri: VikingURI, folder: Path, verb: Literal["moves", "removes"]) -> None:
    """Refuse, as a file made by hand is refused, an entry below ``folder`` that no file of the
    store can be: a symbolic link, a named pipe (socket, device) or a new file named as ov never
    records one (:func:`~ov.store.worktree.recorded`, the rule of :meth:`Transaction.clean_content`
    and of a snapshot commit). A folder's move or removal takes its files only, so such an entry
    stayed behind in the folder said to be moved or removed. A folder is judged by what it holds:
    an empty one holds no data and goes with the move or removal (:func:`_remove_empty_folders`).
    ``verb`` is what ov does to the folder, for the hint."""
    git, tree = tx.git, tx.tree

    def held(rel: str) -> bool:
        return git.entry(tree, rel) is not None

    for dirpath, dirnames, filenames in os.walk(folder):
        rel_dir = os.path.relpath(dirpath, folder).replace(os.sep, "/")
        below = "" if rel_dir == "." else f"/{rel_dir}"
        if own_repository(uri.path + below, dirpath):
            # Another repository's files (a clone, a submodule's checkout): none is ov's to take.
            raise HandEditConflict(
                f"{uri}{below} holds a git repository of its own",
                hint=f"ov {verb} the files it stores only: move or remove that repository by hand (`ov status` lists it), then retry",
            )
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            if TEMP_MARKER in name:
                continue  # an atomic write killed midway: ov's own, removed by the next recovery
            path = os.path.join(dirpath, name)
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                continue  # removed since the folder was listed: nothing is left behind
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            kind = "symbolic link" if stat_mod.S_ISLNK(mode) else special_kind(mode)
            unrecorded = False
            if kind is None and not stat_mod.S_ISDIR(mode):
                # HEAD is looked up only for a name ov would not record (rare: an older ov's "todo ").
                stored = f"{uri.path}/{rel}"
                unrecorded = not recorded(stored, held) and not held(stored)
                kind = "file named as no URI can name it" if unrecorded else None
            if kind is None:
                continue
            where = f"{uri}/{rel}"
            raise HandEditConflict(
                f"{quote(where) if unrecorded or not is_stored_segment(name) else where} was created outside ov since the last commit (a {kind})",
                hint=f"ov {verb} the files it stores only: move or remove it by hand (`ov status` lists it), then retry",
            )
        # A linked folder is refused above, never walked into.
        dirnames[:] = [d for d in dirnames if TEMP_MARKER not in d]


def _remove_empty_folders(folder: Path, root: Path) -> None:
    """After a folder's move or removal, the folders made by hand in it that are empty, then the
    folders above that only they kept: they hold no data, and left there the folder said to be
    moved or removed still listed. Under the write lock; a folder not empty at that moment (a
    file put there since) stays, as it is no rmdir's to take."""
    for dirpath, _dirnames, _filenames in os.walk(folder, topdown=False):
        try:
            os.rmdir(dirpath)
        except OSError:
            pass
    remove_empty_parents(folder.parent, root)


def _always_there(uri: VikingURI) -> bool:
    return uri.is_root or (len(uri.parts) == 1 and uri.scope in PUBLIC_SCOPES)


def _is_dir(uri: VikingURI, path: Path) -> bool:
    """Whether ``uri``, found at ``path`` by :meth:`Store._existing`, is a directory: the root, a
    scope and a standing folder nobody wrote to are, though their folders do not exist yet."""
    return path.is_dir() or ((_always_there(uri) or standing_folder(uri)) and not os.path.lexists(path))


def _memories_folder(uri: VikingURI) -> bool:
    """``viking://user/{uid}/memories``: where `ov remember` writes."""
    return uri.scope == "user" and len(uri.parts) == 3 and uri.parts[2] == "memories"


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")




def _parent_hint(uri: VikingURI) -> str | None:
    parent = uri.parent
    return f"see what is there with {proposal('ls', uri=str(parent))}" if parent is not None else None


def _check_sidecar(uri: VikingURI, data: bytes, *, before: bytes | None = None) -> None:
    """What a sidecar will hold: frontmatter that parses, and a body its layer holds (L0 256, L1
    4,000 characters). One an earlier ov let grow past that may be edited, but not lengthened."""
    body = sidecar.parse(data.decode("utf-8"))[1]
    if before is not None:
        try:
            if len(body) <= len(sidecar.parse(before.decode("utf-8"))[1]):
                return
        except (InvalidInput, UnicodeDecodeError):
            pass  # the old one did not parse: the new one is held to the limit
    sidecar.check_length(uri.name, body)


def _record_kind(uri: VikingURI) -> Literal["manifest", "session"] | None:
    """Which of ov's own records ``uri`` is, if any. They are written by the commands that own
    them: a hand-written manifest made the next add-resource say its folder "was not added from"
    its own source, and a session's messages are checked and rewritten by the next capture. Only
    where ov keeps them: a ``memory_diff.json`` among a user's notes is the user's."""
    if uri.name == sidecar.MANIFEST:
        return "manifest"
    in_session = uri.scope == "user" and len(uri.parts) > 4 and uri.parts[2] == "sessions"
    return "session" if in_session and uri.name in sidecar.SESSION_RECORDS else None


def _refuse_bookkeeping(uri: VikingURI) -> None:
    kind = _record_kind(uri)
    if kind is None:
        return
    if kind == "manifest":
        hint = "add-resource writes it: add the source again, with --include/--exclude or --reason to change it"
    else:
        hint = "add messages with `ov session add`; `ov commit` archives them" if uri.name == sidecar.MESSAGES else "`ov session add` and `ov commit` keep it"
    raise InvalidInput(f"{uri} is ov's own record, not a file to write by hand", hint=hint)


def _check_moved_paths(source: VikingURI, target: VikingURI, moved) -> None:
    """Refuse a move that would put a file (content or summary) past the path limit every read
    and restore holds to: it would be stored, and never read again."""
    too_long = [uri for uri in moved if path_bytes(uri.parts) > MAX_PATH_BYTES]
    if too_long:
        longest = max(too_long, key=lambda uri: path_bytes(uri.parts))
        others = f" (and {len(too_long) - 1} more)" if len(too_long) > 1 else ""
        # Its end is what tells the file apart: the start is the target, already in the message.
        shown = longest.relative_to(target)
        shown = shown if len(shown) <= 100 else "..." + shown[-100:]
        raise InvalidURI(
            f"cannot move {source} to {target}: its file {quote(shown, 110)} would be at a path {path_bytes(longest.parts)} bytes long{others}",
            hint=f"a path is at most {MAX_PATH_BYTES} bytes of UTF-8; choose a shorter target",
        )


def _moved(uri: VikingURI, source: VikingURI, target: VikingURI) -> VikingURI:
    """Where ``uri``, below ``source``, is once ``source`` is moved to ``target``."""
    return VikingURI(target.parts + uri.parts[len(source.parts) :])


def _move_one(tx: Transaction, source: VikingURI, target: VikingURI, file_uri: VikingURI, data: bytes) -> None:
    """Put into ``tx`` the move of one file (holding ``data``) of folder ``source`` moved to ``target``."""
    new_uri = _moved(file_uri, source, target)
    _refuse_carried_records(source, target, file_uri, new_uri)
    if new_uri.name in sidecar.SIDECARS:
        data = sidecar.retarget(data, str(new_uri.parent))
    tx.put(new_uri, data)
    tx.delete(file_uri)


def _refuse_carried_records(source: VikingURI, target: VikingURI, old: VikingURI, new: VikingURI) -> None:
    """Refuse a directory move that would take one of a session's records out of its session,
    or make one at ``new`` (a folder moved into sessions/ became a session whose records no
    command had checked, and ``ov commit`` failed on them). An import's manifest describes the
    folder it sits in, which moves with it: moving an imported folder keeps it."""
    for uri, removed in ((old, True), (new, False)):
        if _record_kind(uri) == "session":
            verb, hint = (
                ("remove", "a session's records stay in its folder; `ov session delete` removes a whole session, `ov rm -r` a folder there that is no session")
                if removed
                else ("create", "only `ov session add` and `ov commit` write a session's records; move the folder elsewhere")
            )
            raise InvalidInput(f"moving {source} to {target} would {verb} {uri}, ov's own record", hint=hint)
