"""Small file-system primitives: atomic writes, locks held across processes, text checks, and
appending JSON lines to logs."""

from __future__ import annotations

import codecs
import json
import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ov.regex import LazyPattern
from ov.uri import TEMP_MARKER

LOG_MAX_BYTES = 4 * 1024 * 1024  # a log (hooks.jsonl, mcp.jsonl) past this is rotated


def atomic_write(path: Path, data: bytes, *, mode: int | None = None, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never a part.

    The bytes go to a temporary file in the same directory, which is then
    renamed over the target (``rename`` is atomic within one file system).
    ``durable`` also flushes the data to disk before the rename, so that it
    survives a power cut, not only a crash of ov. A file replaced keeps its
    permissions; ``mode`` is those of a new file (default: what the umask allows).
    """
    tmp, fd = _temp_beside(path, data, mode)
    try:
        if durable:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        _abandon(tmp, fd)
        raise


@contextmanager
def file_lock(path: Path, timeout: float, busy: str, hint: str) -> Iterator[None]:
    """Held by one process at a time, through the lock file ``path`` (its folder must exist), for
    a read-change-write of files that several ov processes may do at once. Raises
    :class:`~ov.errors.StoreLocked` saying ``busy`` (with ``hint``) when another holds it past
    ``timeout`` seconds."""
    # Deferred: filelock costs ~20 ms to import, and only these writes need it.
    from filelock import FileLock, Timeout

    from ov.errors import StoreLocked

    lock = FileLock(path)
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        raise StoreLocked(busy, hint=hint) from None
    try:
        yield
    finally:
        lock.release()


def atomic_write_all(items: list[tuple[Path, bytes]] | list[tuple[Path, bytes, int | None]], *, mode: int | None = None) -> None:
    """:func:`atomic_write` (durable) of several files, with their flushes to disk overlapping.

    Each ``fsync`` waits for the disk's journal; issued one after another they cost a round trip
    each, issued together the file system commits them in one or two. Every file is renamed into
    place only after all of them are on disk. An item may carry its own mode as a third element.
    """
    if len(items) <= 1:
        for path, data, *own in items:
            atomic_write(path, data, mode=own[0] if own else mode)
        return
    from concurrent.futures import ThreadPoolExecutor

    temps: list[tuple[Path, Path, int]] = []
    renamed = 0
    try:
        for path, data, *own in items:
            temps.append((path, *_temp_beside(path, data, own[0] if own else mode)))
        with ThreadPoolExecutor(max_workers=min(len(temps), 8)) as pool:
            list(pool.map(os.fsync, [fd for _, _, fd in temps]))
        for _, _, fd in temps:
            os.close(fd)
        temps = [(path, tmp, -1) for path, tmp, _ in temps]
        for path, tmp, _ in temps:
            os.replace(tmp, path)
            renamed += 1
    finally:
        for _, tmp, fd in temps[renamed:]:
            _abandon(tmp, fd)


def _temp_beside(path: Path, data: bytes, mode: int | None) -> tuple[Path, int]:
    """A new temporary file next to ``path`` holding ``data``, still open: (its path, its fd).
    Its folder is made only when the file cannot be made without it (most writes find theirs:
    one system call less); a folder of the home is the caller's to make first, private, with
    :meth:`ov.home.Home.ensure`."""
    try:
        tmp, fd = replacement_beside(path, mode)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp, fd = replacement_beside(path, mode)
    try:
        _write_fully(fd, data)
    except BaseException:
        _abandon(tmp, fd)
        raise
    return tmp, fd


def replacement_beside(path: Path, mode: int | None = None, suffix: str = "") -> tuple[Path, int]:
    """An empty temporary file in ``path``'s folder, open for writing, to be renamed over
    ``path``: (its path, its fd). Every atomic replace of ov starts here.

    It has the permissions of the file it will replace, when there is one of the user's own: a rename does not
    carry them over, and a config or a backup the user made private (0600) must not come back
    readable by everyone. A new file gets ``mode`` (None: 0666), narrowed by the umask as any.
    The permissions are set before a byte is written, so nobody can open it while it is wider."""
    kept = kept_mode(path)
    # os.urandom(n).hex() is what secrets.token_hex does, without importing secrets (random, hmac,
    # base64) into every ov process: a stop hook took 3.4 ms less (150 alternating pairs).
    tmp = path.parent / f"{TEMP_MARKER}{os.urandom(6).hex()}{suffix}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, (0o666 if mode is None else mode) if kept is None else 0o600)
    if kept is not None:
        try:
            # Not the umask's narrowing: the replaced file's bits exactly (a group-writable 0664 stays so).
            os.fchmod(fd, kept)
        except BaseException:
            _abandon(tmp, fd)
            raise
    return tmp, fd


def is_replacement(name: str) -> bool:
    """Whether ``name`` is one :func:`replacement_beside` gives (without a suffix)."""
    rest = name[len(TEMP_MARKER) :]
    return name.startswith(TEMP_MARKER) and len(rest) == 12 and all(c in "0123456789abcdef" for c in rest)


# How far ahead of this machine's clock a file just written may be dated: a network file system's
# server dates what it stores by its own clock, and one a few minutes fast is common.
CLOCK_SKEW_SECONDS = 600.0


def untouched_for(mtime: float, now: float | None = None) -> float:
    """How long a file dated ``mtime`` has not been written, for a sweep of what killed writers
    left. A date up to :data:`CLOCK_SKEW_SECONDS` ahead of the clock is just written (0): on a
    network file system whose server runs fast, a live lock or temporary file written a moment
    ago is dated so, and a sweep outside the lock took it for old. A date further ahead counts
    by its distance: the clock stepped back after the write (an NTP correction, a restored VM
    snapshot, a real-time clock in local time) or the file came from a machine whose clock ran
    fast, and a negative age would keep it "just written" until the clock caught up."""
    age = (time.time() if now is None else now) - mtime
    return 0.0 if -CLOCK_SKEW_SECONDS <= age < 0 else abs(age)


def remove_stale_replacements(folder: Path, older_than: float = 0.0) -> list[Path]:
    """Remove from ``folder`` the temporary files of :func:`atomic_write` that a process killed
    mid-write left there (nothing else ever removes them), last changed more than ``older_than``
    seconds ago: the caller knows that no writer of ov's is at work there that long (it holds the
    lock every such writer takes). Only regular files of the user's own with exactly that name;
    the ones removed."""
    removed = []
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed  # no folder (yet), or none ov may look at
    for entry in entries:
        if not is_replacement(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or untouched_for(st.st_mtime, now) < older_than:
                continue
            os.unlink(entry.path)
        except OSError:
            continue  # gone already (another sweep), or not ours to remove
        removed.append(Path(entry.path))
    return removed


def kept_mode(path: Path | str) -> int | None:
    """The permissions a file replacing ``path`` keeps: those of the file there when it is a
    regular file of the user's own, else None (a new file's mode). Only the user's own: another's
    (a link planted to a world-writable file of theirs) would hand them a copy readable by all."""
    try:
        st = os.stat(path)
    except OSError:
        return None  # no file there yet (or none ov may look at)
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() else None


def write_new(path: Path, data: bytes) -> None:
    """Create ``path`` holding ``data``; refused (FileExistsError) when it exists. Not atomic:
    for a file nobody reads before the writer says it is there."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _write_fully(fd, data)
    finally:
        os.close(fd)


def _write_fully(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _abandon(tmp: Path, fd: int) -> None:
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:
            pass
    tmp.unlink(missing_ok=True)


def json_bytes(data) -> bytes:
    """Canonical JSON for files ov writes (sorted keys, two-space indent, UTF-8, final newline):
    the same data always gives the same bytes, so rewrites of unchanged data make no git change."""
    import json

    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def flush_folder(folder: str | Path) -> None:
    """Make the renames into ``folder`` durable, where a folder can be opened to flush it.

    :func:`atomic_write` does not: its callers need the old file or the new one, never a part,
    and ext4, XFS and btrfs journal renames in the order they were made (git flushes no folder
    either). This is for a rename that must survive a power cut once it is reported: the branch
    a commit moved (~0.1 ms here, 2.4 ms at worst of 40), a pack before the loose copies go."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_empty_parents(path: Path, stop: Path) -> None:
    """Remove empty directories from ``path`` upwards, never removing ``stop`` itself."""
    current = path
    while current != stop and stop in current.parents:
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


def looks_binary(data: bytes) -> bool:
    """True for data that is not UTF-8 text (a NUL byte or an undecodable sequence): what the
    store refuses to hold. See :func:`binary_data` for telling binary data from other text."""
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


NOT_TEXT = "is not UTF-8 text"


def content_problem(data: bytes) -> str | None:
    """Why ov does not store ``data`` as a file's content, or None: ov stores text. Every write
    asks, and so do a pack's reader and writer and `ov fsck`: what one refuses, all refuse (a
    pack's Latin-1 memory was imported, then injected by the hooks as replacement characters)."""
    return NOT_TEXT if looks_binary(data) else None


# C0 and C1 controls but tab and newline, and DEL: what ov leaves out of the text it writes itself.
# A line break or separator of another kind (CR, vertical tab, form feed, \x1c-\x1f, NEL) becomes a space.
_GENERATED_TEXT_TABLE = {c: None for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if chr(c) not in "\t\n"} | {
    c: " " for c in (0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x85)
}
# A terminal's escape sequences, whole (what a coloured log or a tool's output pastes in): CSI
# (colours, cursor moves: `ESC [ 1;31 m`) and OSC (titles, links: `ESC ] ... BEL`), in their 7-bit
# and 8-bit forms, a character set's `ESC ( B`, and the other two-character escapes.
_TERMINAL_ESCAPE = LazyPattern(
    # The 8-bit CSI only with parameters: alone, U+009B is more often a mis-decoded character.
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]+[ -/]*[@-~]"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]{0,4096}(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_]"
)
# What a colour sequence leaves once something dropped its ESC: `[1;31mError[0m`. Only what no
# ordinary text spells: digits before the `m` (`[mysql-1`, `notes [mostly` are words), never the
# opening of a bracketed term (`[0m]`, a Markdown link `[1m](x)`), and against other text. A reset
# (`[0m`) or a list of codes (`[1;31m`) goes on either side of that text; a single code only when
# it opens the text it colours (`[32mok`), since after a word it is as often an index or a unit
# (`A[1m`, `[5m, 10m`).
_NOT_A_TERM = r"(?![^\[\]\n]*\])"
_SGR_RESET_OR_LIST = r"(?:0{1,3}|\d{1,3}(?:;\d{1,3}){1,15})m" + _NOT_A_TERM
_COLOUR_REMNANT = LazyPattern(
    rf"\[(?:(?<=\S\[){_SGR_RESET_OR_LIST}|{_SGR_RESET_OR_LIST}(?=\S)|\d{{1,3}}m{_NOT_A_TERM}(?=[^\W_]|\[))"
)


def clean_generated_text(text: str) -> str:
    """``text`` without control characters or terminal escapes, for a file ov writes from what a
    user or a model said (a memory, a summary): one NUL makes the store hold it as binary data,
    which nothing can read or search from then on, and the others show as nothing, garble a
    terminal, or leave their codes (``[0m``) in the text."""
    if "\x1b" in text or "\x9b" in text or "\x9d" in text:
        text = _TERMINAL_ESCAPE.sub("", text)
    if "m" in text and "[" in text:
        text = _COLOUR_REMNANT.sub("", text)
    return text.replace("\r\n", "\n").translate(_GENERATED_TEXT_TABLE)


# Control characters text does not hold (tab, line and page breaks, backspace and escape it may:
# old sources, man pages, coloured logs); DEL too.
_NOT_IN_TEXT = bytes(c for c in range(0x20) if chr(c) not in "\t\n\r\f\v\b\x1b") + b"\x7f"
# Text in a legacy encoding (Latin-1, Windows-1252, Shift JIS, ...) holds none of them, random
# bytes about one in ten: more than one in 32 is binary data.
_BINARY_SHARE = 32


# UTF-32 first: its little-endian mark starts with UTF-16's.
_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def wide_text(data: bytes) -> str | None:
    """The text of UTF-16 or UTF-32 ``data`` that says so with a byte-order mark (Windows tools
    write such files), without the mark; None for other data, or when it does not decode. The
    mark leaves no doubt about the encoding, unlike a legacy one, so such a file is read, not
    called binary for the NUL bytes every wide character of ASCII holds."""
    for mark, codec in _WIDE_BOMS:
        if data.startswith(mark):
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                return None
    return None


def utf8_text(data: bytes) -> bytes:
    """``data`` as ov keeps text: UTF-8 without a byte-order mark. UTF-16 or UTF-32 text that
    starts with its mark (:func:`wide_text`) is encoded again; other data comes back as it is, for
    the caller's UTF-8 check to refuse. Windows editors and PowerShell 5.1 write both marks."""
    if (wide := wide_text(data)) is not None:
        return wide.encode("utf-8", "surrogatepass")
    return data.removeprefix(codecs.BOM_UTF8)


def binary_data(data: bytes) -> bool:
    """True for binary data, False for text, UTF-8 or not (a Latin-1 file is text that ov cannot
    read, not binary data): a NUL byte anywhere, or bytes that are not UTF-8 and hold control
    characters text does not (more than one in 32). Decided on the whole of ``data``, so a
    file's verdict does not depend on where its first odd byte sits. UTF-16 or UTF-32 text with
    its byte-order mark is text (:func:`wide_text`)."""
    if wide_text(data) is not None:
        return False
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        odd = len(data) - len(data.translate(None, _NOT_IN_TEXT))
        return odd * _BINARY_SHARE > len(data)
    return False


def special_kind(mode: int) -> str | None:
    """"named pipe", "socket" or "device" for such an ``st_mode``; None for a regular file, a
    directory or a symbolic link (callers that refuse links do so on their own). Opening a
    named pipe blocks until some other process writes to it, so nothing ov reads may be one."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def append_log(path: Path, record: dict, make_folder: Callable[[Path], object] | None = None) -> None:
    """Append ``record`` and the time to the log at ``path`` as one JSON line, in one ``write`` on
    a file opened ``O_APPEND``, so lines of parallel processes never interleave.

    A log past :data:`LOG_MAX_BYTES` is first renamed to :func:`rotated` (the one old file kept):
    the hook and MCP logs are diagnostics a process appends to for days. The log's folder is made
    by ``make_folder`` (default: as any folder) only when it is missing: a hook logs every run.
    A failure to write is the caller's to ignore (a log never fails what it records)."""
    entry = {"ts": round(time.time(), 3), **record}
    try:
        # A file name that was not UTF-8 is written as its bytes were (surrogateescape).
        data = (json.dumps(entry, ensure_ascii=False, sort_keys=True, default=str) + "\n").encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        # A lone surrogate no byte stands for (half a UTF-16 pair an MCP client sent as "\ud800",
        # in a tool's or an argument's name): the line is written with JSON's escapes instead,
        # which say it as it was, so the call is still logged.
        data = (json.dumps(entry, ensure_ascii=True, sort_keys=True, default=str) + "\n").encode("ascii")
    try:
        if path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, rotated(path))
    except FileNotFoundError:
        pass  # the first line, or another process rotated it just now
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except FileNotFoundError:
        if make_folder is None:
            path.parent.mkdir(parents=True, exist_ok=True)
        else:
            make_folder(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def rotated(path: Path) -> Path:
    """Where :func:`append_log` keeps the older lines of the log at ``path``."""
    return path.with_name(path.name + ".1")


def log_holds(path: Path, key: str, value: str) -> bool:
    """Whether a line of the log at ``path`` (or of its rotated file) records ``key`` as
    ``value``, as :func:`append_log` writes it: one scan of the bytes, no line parsed."""
    said = f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}".encode()
    for candidate in (path, rotated(path)):
        try:
            if said in candidate.read_bytes():
                return True
        except OSError:
            continue
    return False


def size_problem(size: int, max_file_bytes: int, backup: bool) -> str | None:
    """Why a reader refuses a file of ``size`` bytes, or None. An import is held to the importing
    store's ``store.max_file_bytes``, as a write is (and a pull says so of such a file); a backup restores what the account held,
    whatever its size (the hooks append to a session's log past the limit, a user commits a larger
    file by hand or lowers the limit later): only the whole pack's limit applies to it."""
    if backup or size <= max_file_bytes:
        return None
    return f"{size} bytes, over the {max_file_bytes}-byte limit for one file"


def size_hint(size: int) -> str:
    """The command that makes a store take a file of ``size`` bytes."""
    return f"`ov config set store.max_file_bytes {size}`"
