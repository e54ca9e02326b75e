"""Typed errors of the core library.

Every failure a user can cause or meet is one of these. Each carries a stable
machine ``code`` (used in ``--json`` error output), the process exit code the
CLI turns it into, and a ``hint`` that says what to do next: the one given where
it is raised, else its class's. The CLI translates them in exactly one place
(:mod:`ov.cli.main`), the MCP server in another (:mod:`ov.mcp.tools`).

A hint that proposes an argument names it as a placeholder, ``{all=true}`` or ``{mode=replace}``
(``{type}``: the argument alone), and lists it in ``arguments``: the core does not know how its
caller passes arguments, so each edge spells them (:meth:`OvError.hint_for`), ``--all`` on the
command line and ``"all": true`` in an MCP tool call. A hint that proposes a command the MCP
server also has as a tool writes it with :func:`proposal` (``{ov ls uri="viking://x"}``), which
each edge spells as its caller runs it: ``ov ls viking://x`` on the command line, ``ls {"uri":
"viking://x"}`` over MCP. A command only the command line has (``ov fsck``, ``ov status``) is
written as it is typed: the user, or an agent with a shell, runs it in a terminal.
"""

from __future__ import annotations

import copy
import errno
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_USAGE = 2
# Written, but without some of what was asked for, each left out named on stderr (`ov backup`,
# `ov export`): as restic's 3, a nightly job's result is kept and its log says what to fix.
EXIT_INCOMPLETE = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C stopped

# How much of an offending input a message repeats: enough to recognise it, never a 10 KB line.
QUOTE_MAX_CHARS = 200

# Values of OV_DEBUG that switch it off: `OV_DEBUG=0` in a shell profile or a CI matrix means "no",
# and read as "set" it printed a traceback with every error.
_OFF = frozenset({"", "0", "false", "no", "off"})


def debugging() -> bool:
    """Whether ``OV_DEBUG`` asks for tracebacks (set to anything but empty, 0, false, no or off)."""
    return os.environ.get("OV_DEBUG", "").strip().lower() not in _OFF


def quote(value: object, limit: int = QUOTE_MAX_CHARS) -> str:
    """``repr(value)`` for a message, cut to about ``limit`` characters.

    Every message that echoes user input goes through here: the input may be a
    10,000-byte URI segment, a whole file name made of control characters, or a
    JSON value of any type from a manifest.
    """
    if isinstance(value, (str, bytes)):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} {'bytes' if isinstance(value, bytes) else 'characters'} in all)"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def proposal(command: str, **arguments: object) -> str:
    """The placeholder of a call of ``command`` that a hint proposes, for :meth:`OvError.hint_for`
    to spell per edge: ``proposal("ls", uri=uri, recursive=True)``. ``command`` and the arguments
    are named as the MCP tool names them (``add_resource``; the command line's ``add-resource``);
    an argument given as ``...`` is named alone, for the caller to fill in (``ov remember TEXT``).
    Values are written as JSON, so a URI holding braces or spaces cannot end the placeholder."""
    words = [f"{name}" if value is ... else f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in arguments.items()]
    return "{ov " + " ".join([command, *words]) + "}"


class OvError(Exception):
    """Root of every error ov reports to a user."""

    code = "error"
    exit_code = EXIT_RUNTIME
    # The class's hint, for when the raise site has nothing more specific to say: every
    # error envelope promises one (`{code, message, hint}`).
    hint = f"run {proposal('doctor')} to check the set-up; OV_DEBUG=1 shows where it failed"
    # The arguments the hint names as placeholders (see the module's docstring). Only these are
    # spelled, so braces in a hint that quotes user input are left as they are.
    arguments: frozenset[str] = frozenset()

    def __init__(self, message: str, *, hint: str | None = None, arguments: frozenset[str] | set[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if hint:
            self.hint = hint
        if arguments:
            self.arguments = frozenset(arguments)

    def hint_for(self, spell: Callable[[str, str | None], str], spell_call: Callable[[str, list[tuple[str, object]]], str | None]) -> str:
        """The hint with each argument it proposes spelled by ``spell(name, value)`` as the edge's
        caller writes it (``value`` is the text after ``=``, None for the argument alone), and each
        command it proposes (:func:`proposal`) by ``spell_call(command, [(argument, value), ...])``
        (``value`` is ``...`` for an argument named alone); a command the edge does not have
        (``spell_call`` returns None) is left as it is."""
        return spelled(self.hint, spell, spell_call, self.arguments)

    def restated(self, message: str, kind: type[OvError] | None = None) -> OvError:
        """An error of ``kind`` (else this one's class) that says ``message`` and gives this one's
        advice: its hint and the arguments the hint names, which a new error given the hint alone
        would leave as unspelled placeholders."""
        if kind is None:
            # A copy, not a new one: a class whose constructor takes no message (DiskFull takes a
            # path) would have said "no space left on device under <message>".
            error = copy.copy(self)
            error.message, error.args = message, (message,)
            return error
        error = kind(message, hint=self.hint)
        error.arguments = self.arguments
        return error

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "hint": self.hint}


_ARGUMENT = re.compile(r"\{([a-z][a-z_]*)(?:=([^{}=]+))?\}")
_CALL = re.compile(r"\{ov ([a-z][a-z_]*)")
_CALL_ARGUMENT = re.compile(r" ([a-z][a-z_]*)(=?)")
_JSON = json.JSONDecoder()


def spelled(text: str, spell: Callable[[str, str | None], str], spell_call: Callable[[str, list[tuple[str, object]]], str | None], arguments: frozenset[str] = frozenset()) -> str:
    """``text`` (a hint, or a check's fix) with its placeholders spelled as :meth:`OvError.hint_for`
    says; ``arguments`` are the argument placeholders it may hold (only these are spelled)."""
    if not text or "{" not in text:
        return text
    parts, at = [], 0
    # One pass from left to right: what a spelling put in is never read again as a placeholder.
    while (brace := text.find("{", at)) != -1:
        parts.append(text[at:brace])
        done, at = _spelled(text, brace, arguments, spell, spell_call)
        parts.append(done)
    parts.append(text[at:])
    return "".join(parts)


def _spelled(text: str, brace: int, arguments: frozenset[str], spell, spell_call) -> tuple[str, int]:
    """The spelling of the placeholder at ``text[brace]`` and where the text goes on after it;
    a brace that opens none (quoted input, ``{1,1000}``) is kept as it is."""
    call = _CALL.match(text, brace)
    if call is not None:
        parsed, end = _call_arguments(text, call.end())
        said = spell_call(call[1], parsed) if parsed is not None else None
        if said is not None:
            return said, end
    argument = _ARGUMENT.match(text, brace)
    if argument is not None and argument[1] in arguments:
        return spell(argument[1], argument[2]), argument.end()
    return "{", brace + 1


def _call_arguments(text: str, at: int) -> tuple[list[tuple[str, object]] | None, int]:
    """The arguments of a :func:`proposal` from ``text[at]`` to its closing brace, and the index
    after it; None when the text there is not one."""
    parsed: list[tuple[str, object]] = []
    while not text.startswith("}", at):
        word = _CALL_ARGUMENT.match(text, at)
        if word is None:
            return None, at
        at = word.end()
        if not word[2]:
            parsed.append((word[1], ...))
            continue
        try:
            value, at = _JSON.raw_decode(text, at)
        except ValueError:
            return None, at
        parsed.append((word[1], value))
    return parsed, at + 1


# --- bad input: the command line itself is wrong (exit 2) -------------------


class InvalidInput(OvError):
    """An argument or option value that can never be right."""

    code = "invalid_input"
    exit_code = EXIT_USAGE
    # The command line names the command (``ov.cli.main``): "see `ov grep --help` ...".
    hint = "see the command's --help, or the tool's description, for what it accepts"


class InvalidURI(InvalidInput):
    code = "invalid_uri"
    hint = f"a URI looks like viking://resources/notes/a.md or viking://~/memories/ (see {proposal('ls', uri='viking://')})"


class InvalidId(InvalidInput):
    code = "invalid_id"
    hint = "an id uses letters, digits, '_', '.', '@' and '-'"


class BinaryContent(InvalidInput):
    code = "binary_content"
    hint = f"ov stores UTF-8 text; {proposal('add_resource')} converts PDFs and web pages"


class ConfigError(InvalidInput):
    """The config file cannot be used (it does not parse, is not a mapping, is too large, or names
    an invalid identity), or a value given to `ov config set` is not valid for its key."""

    code = "config_invalid"
    hint = "fix the setting with `ov config set KEY VALUE`, or edit or remove the file"

    def __init__(self, message: str, *, hint: str | None = None, problems: dict[str, str] | None = None) -> None:
        super().__init__(message, hint=hint)
        self.problems = problems or {}  # key ("retrieval.budget") -> what is wrong with its value


class HomeInvalid(InvalidInput):
    """``$OV_HOME`` (or the default ``~/.ov``) cannot be ov's home: a relative path, which would
    name another store in each folder ov runs in, or a file where the folder should be."""

    code = "home_invalid"
    hint = "point OV_HOME at a folder by its absolute path (ov makes it when missing), or unset it to use ~/.ov"


class PathTooLong(InvalidInput):
    """A path the file system refuses as too long (ENAMETOOLONG): over ``PATH_MAX`` in all, or a
    name in it over ``NAME_MAX``. A path error, as a URI or a home too long to be one is: the
    command changed nothing, and shorter names (or a shorter ``OV_HOME``) are the cure."""

    code = "path_too_long"
    hint = "set OV_HOME to a folder with a shorter path, or use shorter names or fewer levels"

    def __init__(self, path: object, *, under: bool = False) -> None:
        """``path``: the path refused; ``under``: the folder a file was being made in when the
        OS did not say which (dulwich's object writes), its length the cause."""
        self.path = os.fsencode(path)
        name_max, path_max = _name_limits(path)
        longest = max(self.path.split(b"/"), key=len)
        shown = _shortened(os.fsdecode(self.path))
        if under:
            message = f"a file under {shown} would have a path over the system's limit of {path_max:,} bytes (PATH_MAX): that folder's path alone is {len(self.path):,} bytes"
        elif len(longest) > name_max:
            message = f"the name {_shortened(os.fsdecode(longest))} is {len(longest):,} bytes, over the file system's limit of {name_max:,} (NAME_MAX), in {shown}"
        else:
            message = f"the path {shown} is {len(self.path):,} bytes, over the system's limit of {path_max:,} (PATH_MAX)"
        super().__init__(message)


def _name_limits(path: object) -> tuple[int, int]:
    """``NAME_MAX`` and ``PATH_MAX`` of the file system ``path`` is on (of its deepest folder that
    can be asked), 255 and 4096 (Linux's) where none says."""
    folder = os.fsdecode(path)
    while True:
        try:
            return os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
        except (OSError, ValueError, AttributeError):
            parent = os.path.dirname(folder)
            if not parent or parent == folder:
                return 255, 4096
            folder = parent


def _shortened(path: str) -> str:
    """``path`` quoted whole when short, else its start and end: a 4,000-byte path is the problem,
    not something to read through, and its end says which file."""
    if len(path) <= QUOTE_MAX_CHARS:
        return repr(path)
    return f"{path[:60]!r}...{path[-100:]!r}"


def path_too_long(exc: BaseException, home: Path | None = None) -> PathTooLong | None:
    """The :class:`PathTooLong` that ``exc`` means, or None: the path it names, else ``home``
    (the folder ov was writing in) as the one that is too long."""
    codes = [exc.errno] if isinstance(exc, OSError) else _rust_os_errors(str(exc))
    if errno.ENAMETOOLONG not in codes:
        return None
    filename = getattr(exc, "filename", None)
    if isinstance(filename, (str, bytes, os.PathLike)):
        return PathTooLong(filename)
    return PathTooLong(home, under=True) if home is not None else None


# --- runtime: the input is well formed but the store says no (exit 1) -------


class NotFound(OvError):
    code = "not_found"
    hint = f"see what is there with {proposal('ls')} ({proposal('ls', uri='viking://', recursive=True)} lists everything)"


class AccountNotFound(NotFound):
    """A command that only reads names an account with no repository while the home holds
    others: most likely a typo, which would otherwise read as an empty store."""

    code = "account_not_found"
    hint = "check --account / $OV_ACCOUNT (and identity.account in the config); the first write to an account creates it"


class AlreadyExists(OvError):
    code = "already_exists"
    hint = f"choose a name that does not exist yet, or see what is there with {proposal('stat')}"


class IsADirectory(OvError):
    code = "is_directory"
    hint = f"name a file; {proposal('ls')} lists what the directory holds"


class NotADirectory(OvError):
    code = "not_directory"
    hint = f"name a directory; {proposal('stat')} shows what a URI is"


class DirectoryNotEmpty(OvError):
    code = "not_empty"
    hint = "pass -r to remove it and everything in it"


class NoMatch(OvError):
    code = "no_match"
    hint = f"the text must match exactly, whitespace included; check it with {proposal('read')}"


class AmbiguousMatch(OvError):
    code = "ambiguous_match"
    hint = "give more of the surrounding text so it matches once, or pass {all=true}"
    arguments = frozenset({"all"})


class HandEditConflict(OvError):
    """The work tree holds edits made outside ov that a command would overwrite."""

    code = "hand_edit_conflict"
    hint = "see them with `ov status`; keep them with `ov snapshot commit -m MESSAGE`"


class OtherUsersSpace(OvError):
    """A URI in another user's space (``viking://user/{other}/...``) where only the current user's
    is open: any tool of the MCP server (an agent acts for one user), and find and search, which
    rank the current user's memories and sessions only (:mod:`ov.users`)."""

    code = "other_users_space"
    hint = "name a URI in your own space (viking://~/...) or a shared scope (viking://resources, viking://agent)"


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is Ctrl-C, or what Ctrl-C set off while the stack unwound: a library's
    cleanup can fail on the half-done work it interrupted (dulwich closing a half-written pack:
    ``BufferError``), and that error replaces the KeyboardInterrupt. An error raised ``from None``
    is code that handled the interrupt and said what it means."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return False


class Interrupted(OvError):
    """Ctrl-C stopped the command before any commit of its landed: what it had written is rolled
    back. Said, not only exited with 130, so the user knows what stopped and that nothing changed."""

    code = "interrupted"
    exit_code = EXIT_INTERRUPTED
    hint = "nothing to undo; run the command again to finish it"


class AnswerStopped(Interrupted):
    """A call stopped by its caller (an MCP call cancelled, its server stopping) while a model was
    answering for it. What that left in the store is the caller's to say, not the model client's:
    a write stops before its commit, with nothing written; a read has nothing to write. The MCP
    edge says which, per tool."""

    code = "interrupted"
    hint = "make the call again"


class InterruptedAfterCommit(OvError):
    """Ctrl-C arrived once the command's commit had landed: the change is kept, and an exit of
    130 alone would read as "nothing was done"."""

    code = "interrupted_after_commit"
    exit_code = EXIT_INTERRUPTED
    hint = "nothing to redo; `ov snapshot log` shows the commit"


class StoreLocked(OvError):
    code = "store_locked"
    hint = "another ov command is writing; try again (store.lock_timeout sets how long ov waits)"


class StoreCorrupt(OvError):
    code = "store_corrupt"
    hint = "run `ov fsck` to see what is wrong and how to fix it"


class UnsafeTree(OvError):
    """A commit's tree names a path ov never writes: one that leads out of the work tree or into
    ``.git``, a name no URI may have, a symbolic link or a submodule. Such a commit comes from
    elsewhere (a remote), never from ov; nothing of it reaches the work tree."""

    code = "unsafe_tree"
    hint = "nothing was written there; `ov fsck` lists such paths in the history, `ov snapshot restore REV` goes back to a commit before them"


class RecordDamaged(StoreCorrupt):
    """One of ov's own records (a session's ``.meta.json``) does not hold what ov writes there: a
    hand edit, a merge or a restore broke it, and the command that keeps it cannot go on."""

    code = "record_damaged"
    hint = "bring back a good version with `ov snapshot restore REV --uri URI` (`ov snapshot log --uri URI` lists them)"

    def __init__(self, uri: object, problem: str, *, hint: str | None = None) -> None:
        super().__init__(f"{uri} is damaged: {problem}", hint=hint)
        self.problem = problem


class IndexUnavailable(OvError):
    """The search indices cannot be opened or built."""

    code = "index_unavailable"
    hint = "run `ov reindex` to rebuild the indices from the commits"


class IndexDamaged(IndexUnavailable):
    """The full-text index opened but failed while being read (a damaged segment): a search drops it and rebuilds."""

    code = "index_damaged"


class IndexNotBuilt(IndexUnavailable):
    """There is no index this configuration can search, and the caller may not build one (the
    prompt hook: a build takes seconds to minutes, its deadline is one second)."""

    code = "index_not_built"
    hint = "the next search builds it, or `ov reindex`"


class IndexDamagedReadOnly(IndexUnavailable):
    """The full-text index is damaged on a store ov may not write to (a read-only mount, another
    user's store): the rebuild that repairs it writes, so no search can. Not an :class:`IndexDamaged`,
    which a search answers by rebuilding."""

    code = "index_damaged"
    hint = "a rebuild writes to the store: run `ov reindex` where ov may write to it (mounted read-write, or as the user who owns it)"


class NotRegularFile(OvError):
    """A named pipe, socket or device where a file should be: ov never opens one (a pipe blocks for ever)."""

    code = "not_regular_file"
    hint = "ov stores regular files only; remove it from the account's folder (`ov status` lists it)"


class TooLarge(OvError):
    """More than ov writes in one piece: a pack past what any reader of packs takes."""

    code = "too_large"


class DiskFull(OvError):
    """The file system ov writes to is full (ENOSPC), the user's quota is used up (EDQUOT), or a
    file reached the process's limit on a file's size (EFBIG, ``ulimit -f``): no room, whichever."""

    code = "disk_full"
    hint = "free some space there (or raise the quota), then run the command again (nothing already committed is lost)"

    def __init__(self, path: object, *, hint: str | None = None, size_limit: bool = False) -> None:
        if size_limit:
            message = f"a file under {path} reached the limit on a file's size (`ulimit -f`)"
            hint = hint or "raise the limit (`ulimit -f unlimited`), then run the command again (nothing already committed is lost)"
        else:
            message = f"no space left on device under {path}"
        super().__init__(message, hint=hint)
        self.path = path
        self.size_limit = size_limit

    def at(self, path: object) -> DiskFull:
        """The same failure, said of ``path``: for a write into a folder that is gone by the time
        anyone reads the message (a rebuild's, removed when it fails)."""
        return DiskFull(path, hint=self.hint, size_limit=self.size_limit)


class StoreNotWritable(OvError):
    """The system refuses ov a write in its home: EACCES or EPERM (the folder's owner or
    permissions, an immutable file), EROFS (a read-only mount)."""

    code = "store_not_writable"
    hint = "give the user running ov write access to it (`ls -ld` shows its owner and mode), or run ov as its owner"

    def __init__(self, path: object, reason: str = "Permission denied", *, hint: str | None = None) -> None:
        super().__init__(f"ov cannot write to {path}: {reason}", hint=hint)
        self.path = path
        self.reason = reason

    def at(self, path: object) -> StoreNotWritable:
        """The same refusal, said of ``path`` (see :meth:`DiskFull.at`)."""
        return StoreNotWritable(path, self.reason, hint=self.hint)


NOT_WRITABLE_ERRNOS = frozenset((errno.EACCES, errno.EPERM, errno.EROFS))
NO_SPACE_ERRNOS = frozenset(e for e in (errno.ENOSPC, getattr(errno, "EDQUOT", None), errno.EFBIG) if e is not None)
# Rust libraries (tantivy) raise ValueError with no errno attribute: std::io::Error prints an OS
# error as "MESSAGE (os error N)", or in a debug dump as "Os { code: N, kind: StorageFull, ... }".
_RUST_OS_ERROR = re.compile(r"\(os error (\d+)\)|\bcode: (\d+)")


def _rust_os_errors(text: str) -> list[int]:
    """The OS error numbers a Rust library's error text names."""
    return [int(a or b) for a, b in _RUST_OS_ERROR.findall(text)]


def disk_full(exc: BaseException, path: object) -> DiskFull | None:
    """The :class:`DiskFull` that ``exc`` means (``path``: where ov was writing), or None."""
    if isinstance(exc, OSError):
        codes = [exc.errno]
        found = exc.errno in NO_SPACE_ERRNOS
    else:
        text = str(exc)
        codes = _rust_os_errors(text)
        found = any(code in NO_SPACE_ERRNOS for code in codes) or "StorageFull" in text or "QuotaExceeded" in text or "FileTooLarge" in text
        if "FileTooLarge" in text:
            codes.append(errno.EFBIG)
    return DiskFull(path, size_limit=errno.EFBIG in codes) if found else None


def not_writable(exc: BaseException, path: object) -> StoreNotWritable | None:
    """The :class:`StoreNotWritable` that ``exc`` means, or None. It names the file the error
    names when that exists, else the folder it was to be made in (what refused it); ``path``
    when the error names none (tantivy's)."""
    if isinstance(exc, OSError):
        code = exc.errno
        if code not in NOT_WRITABLE_ERRNOS:
            return None
        if isinstance(exc.filename, (str, bytes, os.PathLike)):
            named = os.fsdecode(exc.filename)
            path = named if os.path.lexists(named) else os.path.dirname(named) or named
    else:
        code = next((c for c in _rust_os_errors(str(exc)) if c in NOT_WRITABLE_ERRNOS), None)
        if code is None:
            return None
    if code == errno.EROFS:
        return StoreNotWritable(path, os.strerror(code), hint="the file system is mounted read-only: mount it read-write, or set OV_HOME to a writable folder")
    return StoreNotWritable(path, os.strerror(code))


class OutOfMemory(OvError):
    """The process ran out of memory, or of threads (their stacks are memory too): a limit on
    its address space (``ulimit -v``, a container's or a batch system's) most often."""

    code = "out_of_memory"
    hint = "raise the limit on memory (`ulimit -v unlimited`, or the container's), or close other programs, then run the command again (nothing already committed is lost)"

    def __init__(self, what: str = "memory") -> None:
        limit = _limit("RLIMIT_AS")
        said = f" (`ulimit -v` is {limit // 1024} KiB)" if limit is not None else ""
        super().__init__(f"ov ran out of {what}{said}")


class TooManyOpenFiles(OvError):
    """The process (EMFILE) or the system (ENFILE) reached its limit on open files."""

    code = "too_many_open_files"
    hint = "raise the limit on open files (`ulimit -n 4096`), then run the command again (nothing already committed is lost)"

    def __init__(self, system: bool = False) -> None:
        if system:
            super().__init__(
                "the system has too many files open (ENFILE)",
                hint="close other programs (or raise fs.file-max), then run the command again (nothing already committed is lost)",
            )
        else:
            limit = _limit("RLIMIT_NOFILE")
            super().__init__("too many open files" + (f" (`ulimit -n` is {limit})" if limit is not None else ""))


def _limit(name: str) -> int | None:
    """The process's soft limit ``name``, None when unlimited or not to be had: out of memory,
    even loading the module that tells fails ("failed to map segment from shared object")."""
    try:
        import resource

        limit = resource.getrlimit(getattr(resource, name))[0]
    except Exception:  # noqa: BLE001 - the message goes without it
        return None
    return None if limit == resource.RLIM_INFINITY else limit


def resource_exhausted(exc: BaseException) -> OutOfMemory | TooManyOpenFiles | None:
    """The typed error a limit of the process's reached means (memory, threads, open files),
    wherever it surfaced: Python's own, an OS call's, or a Rust library's text (tantivy's
    "(os error 24)"). None when ``exc`` is no such thing."""
    if isinstance(exc, MemoryError):
        return OutOfMemory()
    if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
        return OutOfMemory("threads")
    codes = [exc.errno] if isinstance(exc, OSError) else _rust_os_errors(str(exc))
    if errno.EMFILE in codes or errno.ENFILE in codes:
        return TooManyOpenFiles(system=errno.EMFILE not in codes)
    if errno.ENOMEM in codes:
        return OutOfMemory()
    return None


def os_failure(exc: BaseException, home: Path) -> OvError | None:
    """The typed error that an untyped one from deep in the core (a write git, dulwich or tantivy
    made) means, or None: a bug to report. A full disk is :class:`DiskFull` wherever ov was
    writing (under ``home``, ov's home, or where the file the error names is: an .ovpack exported
    to another disk); a refused write is :class:`StoreNotWritable` only in ``home``, since a file
    elsewhere is the command's own to report. The CLI and the MCP server ask this of whatever
    reaches them untranslated, so both report it alike. A limit of the process's reached
    (memory, threads, open files) is :func:`resource_exhausted`'s wherever it happens, and a path
    the system refuses as too long :func:`path_too_long`'s."""
    limit = resource_exhausted(exc)
    if limit is not None:
        return limit
    too_long = path_too_long(exc, home)
    if too_long is not None:
        return too_long
    written = home
    filename = getattr(exc, "filename", None)
    if isinstance(filename, str) and not Path(filename).is_relative_to(home):
        written = Path(filename).parent
    full = disk_full(exc, written)
    if full is not None:
        return full
    refused = not_writable(exc, None)
    if refused is None or refused.path is None:
        return None
    return refused if Path(refused.path).is_relative_to(home) else None
