"""Reading what `ov add-resource` was pointed at: a file, a directory, or an http(s) URL.

Directories are walked in sorted order. What git ignores is left out (with
dulwich's own gitignore matcher, the same rules git uses): inside a git work
tree, its ``.gitignore`` files from the work tree's top down, ``.git/info/exclude``
and the user's ``core.excludesFile``; elsewhere the ``.gitignore`` files in the
folder. ``--include`` / ``--exclude`` patterns use gitignore syntax too.
Version-control folders, generated folders (``__pycache__``, ``node_modules``),
Python and conda environments, lockfiles, minified bundles and source maps,
hidden entries (unless an ``--include`` pattern names them), symbolic links,
named pipes, sockets and devices, names that are not UTF-8, binary files that no
parser reads, and oversized files are skipped, each with its reason. Text that
is not UTF-8 is not binary: the parser marks it failed.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ov.errors import InvalidInput, OvError, quote
from ov.files import binary_data, special_kind
from ov.home import Home, expand_user
from ov.ingest.formats import LOCKFILES, MACHINE_SUFFIXES
from ov.ingest.model import SourceFile, Skipped
from ov.progress import Progress
from ov.uri import sanitize_segment
from ov.urls import has_userinfo, without_userinfo

VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"})
# Folders tools fill with what they generate: a folder added outside a git work tree (an installed
# package, a downloaded project) has no .gitignore to leave them out.
GENERATED_DIRS = frozenset({"__pycache__", "node_modules"})
# What makes a folder an installed environment, whatever its name (`venv/`, `env/`, `.tox/py312/`):
# thousands of files of other people's packages, and Python <= 3.12 writes no .gitignore into one.
ENVIRONMENT_MARKERS = (("pyvenv.cfg", "Python virtual environment (holds pyvenv.cfg)"), ("conda-meta", "conda environment (holds conda-meta/)"))
# Binary formats a parser reads; every other binary file is skipped.
PARSEABLE_BINARY = frozenset({".pdf"})
NOT_UTF8_NAME = "name is not UTF-8"
PYTHON_SUFFIXES = frozenset({".py", ".pyw", ".pyi"})
# PEP 263's declaration (the regular expression the PEP gives).
# A hidden name, and one that reads as a shown one (underscores, then a dot).
_HIDDEN_OR_SHOWN = re.compile(r"_*\.(?!\.?$)")


def shown_name(name: str) -> str:
    """The name a file or folder of a source is stored under: itself, but for a hidden name, which
    takes a ``_`` in front (``.github`` is ``_.github``, ``.env`` is ``_.env``). ov's own files are
    the hidden ones (``.overview.md``, ``.sources.json``), and ls, grep and the summaries pass them
    by. A name that already reads that way takes one more (``_.cache`` is ``__.cache``), so every
    stored name gives back its source's (drop one ``_`` before ``_*.``), and ``.env`` never takes
    the place of an ``env`` beside it."""
    return "_" + name if _HIDDEN_OR_SHOWN.match(name) else name


_CODING_LINE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


class FetchError(OvError):
    """A URL could not be fetched (timeout, HTTP error, too large, not http)."""

    code = "fetch_failed"
    # `ov doctor` checks ov's set-up, nothing about a URL: the class's hint is the URL's.
    hint = "check the URL, and that this machine reaches the server (network, proxy settings such as HTTPS_PROXY)"


@dataclass(frozen=True)
class SourceLimit:
    """The most files one add takes from a folder, and the most bytes they hold together
    (``ingest.max_source_files``, ``ingest.max_source_total_bytes``): an add of /usr/share read
    665 MB and took nine minutes, every other write of an MCP server waiting behind it."""

    files: int
    bytes: int


class SourceTooLarge(InvalidInput):
    """A folder holds more to add than :class:`SourceLimit` allows: refused before anything is
    written, and before more than the limit is read."""

    code = "source_too_large"


# Past the limit the walk only counts what it would add, to say how much there is and where; it
# stops counting at this many times the limit (a model may name "/").
COUNTED_PAST_LIMIT = 10
# The subfolders a refusal names, those with the most files to add.
NAMED_FOLDERS = 3


@dataclass
class Collected:
    """The files read from a source (file, folder or URL) before they are added."""

    name: str  # default name of the import root
    kind: str  # "file" | "directory" | "http"
    uri: str  # absolute path or URL of what was added (a URL as kept_url keeps it)
    redacted: int = 0  # secrets redacted from the URL
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def collect(
    source: str,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    max_bytes: int,
    url_timeout: float,
    url_max_bytes: int,
    limit: SourceLimit | None = None,
    progress: Progress | None = None,
) -> Collected:
    """What ``source`` (a URL, a file, a folder) holds; ``progress`` is told of each name a
    folder's walk gathers (stage ``gather``), and may raise to stop it."""
    if is_url(source):
        return fetch_url(source, timeout=url_timeout, max_bytes=url_max_bytes)
    if "://" in source:
        raise InvalidInput(f"{quote(_shown(kept_url(source)[0]))} is neither a local path nor an http(s) URL")
    return collect_path(Path(source), include=include, exclude=exclude, max_bytes=max_bytes, limit=limit, progress=progress)


def local_source(path: str | os.PathLike) -> str:
    """How a local source is recorded: its absolute path with no `..` and no symbolic link."""
    return os.path.realpath(path)


def folder_name(path: str) -> str:
    """The default name of the import root of the folder at ``path`` (its real path)."""
    return sanitize_segment(os.path.basename(path))


def collect_path(
    path: Path,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    max_bytes: int,
    machine_files: bool = False,
    limit: SourceLimit | None = None,
    progress: Progress | None = None,
) -> Collected:
    """What a local file or folder holds. ``machine_files`` keeps lockfiles, minified bundles and
    source maps (:data:`LOCKFILES`, :data:`MACHINE_SUFFIXES`): a skill's scripts run with them.
    SourceTooLarge for a folder that holds more to add than ``limit``."""
    if not os.path.lexists(path):
        raise InvalidInput(f"{_shown(str(path))} does not exist", hint="give a file, a directory or an http(s) URL")
    given = path.absolute()
    # The source is recorded by its one real spelling, without `..` or a link on the way
    # (`../src/docs` from a sibling folder, /tmp on macOS, a linked home): adding it again from
    # another folder or shell is then the same source, as "adding again" promises. realpath, not
    # Path.resolve(): that raises RuntimeError on a loop (Python 3.11); realpath gives a path the
    # os.stat below then finds to loop.
    path = Path(local_source(given))
    if not _is_utf8(str(path)):
        # The path is recorded as the source in .sources.json (UTF-8) and printed.
        raise InvalidInput(f"the path {_shown(str(path))} is not UTF-8", hint="rename it, or add a folder above it with a UTF-8 path")
    include_filter, exclude_filter = _patterns(include, "include"), _patterns(exclude, "exclude")
    hidden_includes = [_segments(item) for item in _pattern_items(include) if _names_hidden(item)]
    if path.is_file():
        collected = Collected(_stem_name(path.name), "file", str(path))
        # A file named on purpose is shown: `.env` kept as `.env` would be stored where ls, grep
        # and the summaries never look (ov's own files are the hidden ones), yet committed.
        _add_file(collected, path, shown_name(path.name), max_bytes, standalone=True)
        return collected
    if not path.is_dir():
        try:
            kind = special_kind(os.stat(path).st_mode) or "special file"
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise InvalidInput(
                    f"{_shown(str(given))} is a symbolic link in a loop: it never leads to a file or a folder",
                    hint="fix the link, or add the file or folder it should lead to",
                ) from None
            raise InvalidInput(f"{path} does not exist (a symbolic link to nowhere?)") from None
        raise InvalidInput(f"{path} is a {kind}, neither a file nor a directory")
    collected = Collected(folder_name(str(path)), "directory", str(path))
    _walk(collected, path, include_filter, exclude_filter, hidden_includes, max_bytes, machine_files, limit, progress)
    if not collected.files and not collected.skipped:
        raise InvalidInput(f"{path} holds no files")
    return collected


def refuse_store_source(source_text: str, home: Home) -> None:
    """Refuse a local source that holds ov's home or lies in its stores (the accounts or their
    derived state): the store would be ingested into itself. Other folders under the home (notes
    kept beside the config, say) are ordinary sources."""
    if is_url(source_text):
        return
    source = Path(os.path.realpath(source_text))
    root = Path(os.path.realpath(home.root))
    stores = [Path(os.path.realpath(p)) for p in (home.root / "accounts", home.state_root)]
    if source == root or source in root.parents:
        where = "is" if source == root else "holds"
    elif any(source == p or p in source.parents for p in stores):
        where = "is inside"
    else:
        return
    raise InvalidInput(
        f"{quote(source_text)} {where} ov's store ({home.root}); a store cannot be added to itself",
        hint="add the original files, or copy them out with `ov export` first",
    )


def fetch_url(url: str, *, timeout: float, max_bytes: int) -> Collected:
    """Download one document; the whole fetch is bounded in time and size, and keeps to the rule
    of :mod:`ov.ingest.web` on every hop. Credentials in the URL (``user:password@``) are sent as
    HTTP basic auth, and the URL is kept and shown without them (:func:`kept_url`)."""
    import base64
    import time
    import urllib.error
    import urllib.parse
    import urllib.request

    # Deferred, as the imports above: urllib and http.client are only for URLs, the rules for an add.
    from ov.ingest.web import Refused, check_url, opener
    from ov.redact.engine import redact

    kept, found = kept_url(url)
    shown = quote(_shown(kept))
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # "Invalid IPv6 URL", ...
        raise InvalidInput(f"{shown} is not a valid URL: {redact(str(exc))[0]}") from None
    # The scheme is web.check_url's to judge, on this URL as on every redirect.
    if not parts.hostname:
        raise InvalidInput(f"{shown} names no host")
    if not _is_utf8(url):
        raise InvalidInput(f"the URL {shown} is not UTF-8 text")
    # urlopen's timeout bounds each socket operation, not the download: a server sending a
    # byte a second never trips it. The deadline is checked between reads instead.
    deadline = time.monotonic() + timeout
    too_slow = FetchError(f"fetching {shown} took longer than {timeout:g}s", hint="raise ingest.url_timeout")
    authorization = None
    if has_userinfo(url):
        # urllib would take "alice:secret@host" for the host's name. Basic auth, the scheme such a
        # URL means; RFC 7617 leaves the encoding of the credentials open, UTF-8 is what browsers send.
        credentials = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(credentials.encode("utf-8")).decode("ascii")
    # http.client sends ASCII only: spaces and letters beyond ASCII are percent-encoded (an IRI
    # pasted from a browser's address bar); what is already encoded stays as it is.
    wire = urllib.parse.quote(without_userinfo(url), safe=":/?#[]@!$&'()*+,;=%~")
    request = urllib.request.Request(wire, headers={"User-Agent": "ov (+https://github.com/ovctx/ov)"})
    if authorization:
        request.add_unredirected_header("Authorization", authorization)  # a redirect elsewhere does not get it
    refused_hint = "ov fetches http(s) URLs only, never from a link-local (169.254.0.0/16, fe80::/10) or unspecified address: save the page from a browser and add the file"
    try:
        check_url(wire)
        with opener(authorization).open(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise FetchError(f"{shown} is {int(declared)} bytes, over the {max_bytes}-byte limit", hint="raise ingest.url_max_bytes")
            chunks: list[bytes] = []
            size = 0
            while chunk := response.read1(64 * 1024):  # read1: whatever has arrived, never waits for a full buffer
                size += len(chunk)
                if size > max_bytes:
                    raise FetchError(f"{shown} is larger than the {max_bytes}-byte limit", hint="raise ingest.url_max_bytes")
                chunks.append(chunk)
                if time.monotonic() > deadline:
                    raise too_slow
            data = b"".join(chunks)
            media_type = response.headers.get_content_type()
            # The charset goes with the page: a page that is not UTF-8 may declare it only here.
            charset = response.headers.get_content_charset()
            content_type = f"{media_type}; charset={charset}" if charset else media_type
            final_url, in_final = kept_url(response.geturl())
    except Refused as exc:
        where = f" (redirected to {quote(_shown(kept_url(exc.url)[0]))})" if exc.url and exc.url != wire else ""
        raise FetchError(f"{shown} was not fetched{where}: {redact(exc.why)[0]}", hint=refused_hint) from None
    except urllib.error.HTTPError as exc:
        # The reason of a refused redirect quotes its target.
        raise FetchError(f"{shown} answered HTTP {exc.code} {redact(str(exc.reason))[0]}", hint=_http_hint(exc.code)) from None
    except (TimeoutError, OSError) as exc:  # URLError is an OSError; socket timeouts too
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise too_slow from None
        raise FetchError(f"cannot fetch {shown}: {redact(str(reason))[0]}") from None
    except ValueError as exc:  # http.client's InvalidURL: a port that is not a number, ...
        raise InvalidInput(f"{shown} is not a valid URL: {redact(str(exc))[0]}") from None
    # Named after the URL as kept: a token in the path would otherwise become the name.
    name = _url_name(final_url, media_type)
    collected = Collected(_stem_name(name), "http", kept, redacted=found + (in_final if final_url != kept else 0))
    collected.files.append(SourceFile(name, data, "http", final_url, content_type, standalone=True))
    return collected


def kept_url(url: str) -> tuple[str, int]:
    """The URL as ov keeps and shows it, and how many secrets were redacted from it: without its
    user info (``alice:password@``, sent as basic auth, never stored), its secrets redacted. Every
    rule applies, as in a settings file: a URL's ``?api_key=...`` is a setting."""
    # Deferred: only an add needs the rules, not every import of this module.
    from ov.redact.engine import redact

    return redact(without_userinfo(url))


def _http_hint(status: int) -> str | None:
    """What to do about an HTTP error status, or None for the class's hint."""
    if status in (404, 410):
        return "the server has no such page: check the URL"
    if status in (401, 403):
        return "the server refuses to give the page without a login: save it from a browser and add the file"
    if status == 429 or status >= 500:
        return "the server could not answer now: try again later"
    return None


def _walk(
    collected: Collected,
    root: Path,
    include,
    exclude,
    hidden_includes: list[list[str]],
    max_bytes: int,
    machine_files: bool,
    limit: SourceLimit | None = None,
    progress: Progress | None = None,
) -> None:
    gitignore = _git_ignores(root)
    held = 0  # the bytes of collected.files
    past: _PastLimit | None = None
    seen = 0  # the names looked at: 10,000 take about a second, which a stop must not wait out
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        keep = []
        for name in sorted(dirnames):
            rel = rel_dir + name
            reason = _skip_dir_reason(root / rel, name, rel, gitignore, exclude, hidden_includes)
            if reason:
                collected.skipped.append(Skipped(_shown(rel) + "/", reason))
            else:
                keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            if progress:
                progress("gather", seen, None)
            seen += 1
            rel = rel_dir + name
            reason = _skip_file_reason(root / rel, name, rel, gitignore, include, exclude, hidden_includes)
            if reason is None and not machine_files and not include:
                reason = _machine_file(name)
            if reason:
                collected.skipped.append(Skipped(_shown(rel), reason))
            else:
                size = _size(root / rel, max_bytes) if limit is not None else 0
                if limit is not None and past is None and (len(collected.files) >= limit.files or held + size > limit.bytes):
                    past = _PastLimit(limit, collected, held)
                if past is not None:  # counted, not read
                    if not past.count(rel, size):
                        past.refuse(root)
                    continue
                kept = len(collected.files)
                # A hidden name an --include took is shown, as a hidden file named on its own is.
                _add_file(collected, root / rel, "/".join(shown_name(part) for part in rel.split("/")), max_bytes)
                held += sum(len(f.data) for f in collected.files[kept:])
    if past is not None:
        past.refuse(root)
    collected.skipped.extend(Skipped(path, "unreadable .gitignore (its rules not applied)") for path in gitignore.unreadable())


def _size(path: Path, max_bytes: int) -> int:
    """The bytes ``path`` adds: none for a file too large to add, or gone, which are skipped."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return 0
    return size if size <= max_bytes else 0


class _PastLimit:
    """What a folder holds to add once it holds more than its :class:`SourceLimit`: the files
    and bytes, counted without reading them, and the subfolders that hold the most."""

    def __init__(self, limit: SourceLimit, collected: Collected, held: int) -> None:
        self.limit = limit
        self.files = len(collected.files)
        self.bytes = held
        self.by_folder: dict[str, int] = {}
        for f in collected.files:
            self._in_folder(f.relpath)

    def _in_folder(self, rel: str) -> None:
        if "/" in rel:
            top = rel.split("/", 1)[0] + "/"
            self.by_folder[top] = self.by_folder.get(top, 0) + 1

    def count(self, rel: str, size: int) -> bool:
        """Count one more file; False once there are too many to go on counting."""
        self.files += 1
        self.bytes += size
        self._in_folder(rel)
        return self.files <= COUNTED_PAST_LIMIT * self.limit.files

    def refuse(self, root: Path):
        limit = self.limit
        many = self.files > COUNTED_PAST_LIMIT * limit.files
        holds = f"more than {COUNTED_PAST_LIMIT * limit.files:,} files" if many else f"{self.files:,} files ({_mib(self.bytes)})"
        passed = [f"ingest.max_source_files ({limit.files:,} files)"] if self.files > limit.files else []
        passed += [f"ingest.max_source_total_bytes ({_mib(limit.bytes)})"] if self.bytes > limit.bytes else []
        most = sorted(self.by_folder.items(), key=lambda item: (-item[1], item[0]))[:NAMED_FOLDERS]
        where = f"; the most in {', '.join(f'{_shown(name)} ({n:,})' for name, n in most)}" if most else ""
        raise SourceTooLarge(
            f"{_shown(str(root))} holds {holds} to add, more than {' and '.join(passed)} {'allow' if len(passed) > 1 else 'allows'}{where}: nothing was added",
            hint=f"add one of its subfolders, or leave parts out with {{exclude}}; `ov config set {passed[0].split(' ')[0]} N` raises the limit",
            arguments={"exclude"},
        )


def _mib(count: int) -> str:
    if count < 2**20:
        return f"{count:,} bytes"
    return f"{count / 2**20:,.1f} MiB"


class _GitIgnores:
    """What git ignores below an added folder, asked with paths relative to that folder.

    Inside a git work tree these are git's own rules for those paths: the ``.gitignore`` files from
    the work tree's top down to the folder and below it, ``info/exclude`` (of the repository's
    common folder, which a linked work tree shares) and the user's ``core.excludesFile`` (default
    ``~/.config/git/ignore``); adding ``docs/`` leaves out the ``docs/_build/`` the top's .gitignore
    names. Outside one, the folder's own ``.gitignore`` files. A ``.gitignore`` that cannot be read
    is passed over, its rules not applied, as git does, and :meth:`unreadable` names it.
    """

    def __init__(self, manager, top: str, prefix: str) -> None:
        self._manager = manager
        self._top = top
        self._prefix = prefix  # the folder's path in the work tree, "" or ending in "/"

    def is_ignored(self, rel: str) -> bool:
        return bool(self._manager.is_ignored(self._prefix + rel))

    def unreadable(self) -> list[str]:
        """The ``.gitignore`` files passed over: relative to the folder below it, else absolute."""
        shown = []
        for folder in self._manager.unreadable:
            path = (folder + "/" if folder else "") + ".gitignore"
            inside = path.startswith(self._prefix)
            shown.append(_shown(path[len(self._prefix) :] if inside else os.path.join(self._top, path)))
        return shown


def _git_ignores(root: Path) -> _GitIgnores:
    from dulwich.ignore import IgnoreFilter, default_user_ignore_filter_path  # Deferred: only directory ingest needs it.

    manager_class = _ignore_manager_class()
    top = _work_tree_top(Path(os.path.realpath(root)))
    if top is not None:
        from dulwich.errors import NotGitRepository
        from dulwich.repo import Repo

        try:
            with Repo(str(top)) as repo:
                config = repo.get_config_stack()
                # dulwich's from_repo reads the linked work tree's own info/exclude; git reads the
                # common folder's, the one `git status` there honours.
                shared = [os.path.join(repo.commondir(), "info", "exclude"), default_user_ignore_filter_path(config)]
                ignorecase = config.get_boolean(b"core", b"ignorecase", False)
            rules = []
            for path in shared:
                try:
                    rules.append(IgnoreFilter.from_path(str(expand_user(path))))
                except OSError:
                    pass  # none, or unreadable: git warns and goes on
            manager = manager_class(str(top), rules, ignorecase)
        except (NotGitRepository, OSError, ValueError, KeyError):
            manager = None  # a broken .git: the folder's own .gitignore files, as outside git
        if manager is not None:
            prefix = os.path.relpath(os.path.realpath(root), top).replace(os.sep, "/")
            prefix = "" if prefix == "." else prefix + "/"
            # A folder git ignores that was named on purpose (`ov add-resource build/docs`) is taken,
            # as a hidden file named on its own is: the rules below it still apply.
            if not prefix or not manager.is_ignored(prefix):
                return _GitIgnores(manager, str(top), prefix)
    return _GitIgnores(manager_class(str(root), [], False), str(root), "")


_IGNORE_MANAGER = None


def _ignore_manager_class():
    """dulwich's IgnoreFilterManager, passing over a ``.gitignore`` it cannot read (a folder of that
    name, no permission) as git does, instead of failing the whole add with it."""
    global _IGNORE_MANAGER
    if _IGNORE_MANAGER is None:
        from dulwich.ignore import IgnoreFilterManager

        class PassingOver(IgnoreFilterManager):
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                self.unreadable: list[str] = []

            def _load_path(self, path: str):
                try:
                    return super()._load_path(path)
                except OSError:
                    self._path_filters[path] = None  # asked once: its files are all below it
                    self.unreadable.append(path)
                    return None

        _IGNORE_MANAGER = PassingOver
    return _IGNORE_MANAGER


def _work_tree_top(folder: Path) -> Path | None:
    """The top of the git work tree ``folder`` lies in (where ``.git`` is, a folder or, in a linked
    work tree or a submodule, a file), or None."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def _skip_dir_reason(path: Path, name: str, rel: str, gitignore, exclude, hidden_includes: list[list[str]]) -> str | None:
    if not _is_utf8(name):
        return NOT_UTF8_NAME
    if name in VCS_DIRS:
        return "version-control folder"
    if name in GENERATED_DIRS:
        return "generated folder"
    if path.is_symlink():
        return "symbolic link"
    if name.startswith(".") and not _named_by(hidden_includes, rel):
        return "hidden"
    for marker, what in ENVIRONMENT_MARKERS:
        if os.path.lexists(path / marker):
            return what
    if gitignore.is_ignored(rel + "/"):
        return "ignored by git"
    if exclude and exclude.is_ignored(rel + "/"):
        return "excluded by --exclude"
    return None


def _skip_file_reason(path: Path, name: str, rel: str, gitignore, include, exclude, hidden_includes: list[list[str]]) -> str | None:
    if not _is_utf8(name):
        return NOT_UTF8_NAME  # it could be neither stored as a URI segment nor printed
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        mode = stat.S_IFREG  # gone since the listing: _add_file reports it
    if stat.S_ISLNK(mode):
        return "symbolic link"
    kind = special_kind(mode)
    if kind:
        return kind  # a named pipe would block the read for ever; git stores none of these
    if name.startswith(".") and not _named_by(hidden_includes, rel):
        return "hidden"
    if gitignore.is_ignored(rel):
        return "ignored by git"
    if exclude and exclude.is_ignored(rel):
        return "excluded by --exclude"
    if include and not include.is_ignored(rel):
        return "not matched by --include"
    return None


def _machine_file(name: str) -> str | None:
    """Why a file is for machines, not people (:data:`LOCKFILES`, :data:`MACHINE_SUFFIXES`), or None."""
    if name in LOCKFILES:
        return "lockfile (--include takes it)"
    lowered = name.lower()
    for suffix, what in MACHINE_SUFFIXES:
        if lowered.endswith(suffix):
            return f"{what} (--include takes it)"
    return None


def _names_hidden(pattern: str) -> bool:
    """Whether a gitignore pattern spells a hidden name (a segment starting with a dot)."""
    return any(part.startswith(".") and part not in (".", "..") for part in pattern.split("/"))


def _segments(pattern: str) -> list[str]:
    """A gitignore pattern's segments from the folder's top: one without a slash but at its end
    matches at any depth (``**/`` before it)."""
    body = pattern.rstrip("/")
    if body.startswith("/"):
        return body[1:].split("/")
    return body.split("/") if "/" in body else ["**", body]


def _named_by(hidden_includes: list[list[str]], rel: str) -> bool:
    """Whether an --include pattern names the hidden entry ``rel``, or for a folder a path in it:
    each hidden name on the way is matched by a segment spelled with its dot (``.github/*/*.yml``
    takes ``.github/workflows/ci.yml``; ``*.yml`` alone takes no hidden file, as before). Whether a
    file is then taken is the --include filter's to decide."""
    from fnmatch import fnmatchcase

    def reach(segments: list[str], parts: list[str]) -> bool:
        if not parts or not segments:
            return True  # all the way down, or into a folder the pattern takes whole
        head, part = segments[0], parts[0]
        if head == "**":
            return reach(segments[1:], parts) or (not part.startswith(".") and reach(segments, parts[1:]))
        explicit = not part.startswith(".") or head.startswith(".")
        return explicit and fnmatchcase(part, head) and reach(segments[1:], parts[1:])

    parts = rel.split("/")
    return any(reach(segments, parts) for segments in hidden_includes)


def _add_file(collected: Collected, path: Path, rel: str, max_bytes: int, *, standalone: bool = False) -> None:
    try:
        # O_NONBLOCK: should the file have become a named pipe since it was listed, the open
        # returns at once (fstat then says what it is) instead of waiting for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            kind = special_kind(st.st_mode)
            if kind:
                collected.skipped.append(Skipped(rel, kind))
                return
            if st.st_size > max_bytes:
                collected.skipped.append(Skipped(rel, f"larger than {max_bytes} bytes ({st.st_size})"))
                return
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        collected.skipped.append(Skipped(rel, f"unreadable: {exc.strerror or exc}", failed=True))
        return
    if len(data) > max_bytes:  # it grew while being read
        collected.skipped.append(Skipped(rel, f"larger than {max_bytes} bytes"))
        return
    if path.suffix.lower() in PYTHON_SUFFIXES:
        data = python_as_utf8(data)
    # Text that is not UTF-8 goes on to the parser, which marks it failed (--strict stops on it):
    # called "binary file" when the odd byte sat near the top, a Latin-1 note was dropped unseen.
    if path.suffix.lower() not in PARSEABLE_BINARY and binary_data(data):
        collected.skipped.append(Skipped(rel, "binary file"))
        return
    collected.files.append(SourceFile(rel, data, "file", str(path), standalone=standalone))


def _patterns(patterns: Sequence[str], option: str):
    """Gitignore-style patterns (comma-separated values allowed) as one dulwich filter, or None.
    ``option`` ("exclude") names them in a message as both edges can read it: ``--exclude`` on the
    command line, the ``exclude`` argument of the MCP ``add_resource`` tool.

    Each pattern is compiled on its own first: dulwich's filter logs and drops a malformed
    one ("Ignoring malformed pattern"), and a dropped --include would skip every file.
    """
    from dulwich.ignore import IgnoreFilter, Pattern
    from dulwich.wildmatch import MalformedPattern

    items = _pattern_items(patterns)
    for item in items:
        try:
            Pattern(item.encode())
        except (MalformedPattern, ValueError):  # ValueError: what re.error derives from
            raise InvalidInput(
                f"invalid {option} pattern {quote(item)}: git's matcher refuses it (an unclosed '[', a trailing '\\', ...)",
                hint="patterns use gitignore syntax, e.g. '*.md' or 'docs/'; a literal '[' is written '\\['",
            ) from None
    return IgnoreFilter([p.encode() for p in items]) if items else None


def python_as_utf8(data: bytes) -> bytes:
    """A Python source that is not UTF-8 but says how to read it (PEP 263: ``# -*- coding: cp1251 -*-``
    on its first or second line), as UTF-8, the declaration saying so; other data as it is.

    The encoding is found as Python finds it (:func:`tokenize.detect_encoding`), so what Python
    would run is what is stored; a file its declaration does not decode is left for the parser to
    mark failed, as any text that is not UTF-8."""
    try:
        data.decode("utf-8")
        return data
    except UnicodeDecodeError:
        pass
    import io  # Deferred, as tokenize: only a source that is not UTF-8 needs them.
    import tokenize

    try:
        encoding, _lines = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):  # an unknown encoding, or bytes it does not hold
        return data
    if encoding in ("utf-8", "utf-8-sig"):
        return data  # not reached for valid UTF-8; the parser reports the bad byte
    lines = text.split("\n", 2)
    for i in range(min(2, len(lines))):
        match = _CODING_LINE.match(lines[i])
        if match:
            # Stored as UTF-8, it would be misread by the declaration it came with.
            lines[i] = lines[i][: match.start(1)] + "utf-8" + lines[i][match.end(1) :]
            break
    return "\n".join(lines).encode("utf-8")


def _pattern_items(patterns: Sequence[str]) -> list[str]:
    return [p.strip() for value in patterns for p in value.split(",") if p.strip()]


def _stem_name(filename: str) -> str:
    stem = filename.rsplit(".", 1)[0] if "." in filename.strip(".") else filename
    return sanitize_segment(stem)


def _url_name(url: str, content_type: str) -> str:
    """The document's file name: the URL's last path segment, or for a bare host the host and
    port (``127.0.0.1_8080``, ``example.com``), with an extension from the content type."""
    parts = urlsplit(url)
    extension = {"text/html": ".html", "application/pdf": ".pdf", "text/markdown": ".md"}.get(content_type, ".txt")
    # Escapes decoded: "caf%C3%A9%20menu.html" is the page "café menu.html". An escaped "/" is
    # part of the name, not a folder; the parser renames what is still no valid name.
    last = unquote(parts.path.rstrip("/").rsplit("/", 1)[-1]).replace("/", "_")
    if not last:
        # A host's dots are not an extension: the content type's always follows it.
        try:
            port = parts.port
        except ValueError:
            port = None
        host = parts.hostname or "page"
        return f"{host}_{port}{extension}" if port else f"{host}{extension}"
    return last if "." in last else last + extension


def _is_utf8(text: str) -> bool:
    """False for a name the OS gave with bytes that are not UTF-8 (they arrive as surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(text: str) -> str:
    """``text`` printable: bytes that are not UTF-8 are shown as ``\\xe9`` escapes."""
    return text if _is_utf8(text) else text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
