"""Reading what `ov add-resource` was pointed at: a file, a directory, or an http(s) URL.

Directories are walked in sorted order. ``.gitignore`` files are honoured
(with dulwich's own gitignore matcher, the same rules git uses), and so are
``--include`` / ``--exclude`` patterns, which use gitignore syntax too.
Version-control folders, hidden entries, symbolic links, binary files that no
parser reads, and oversized files are skipped, each with its reason.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ov.errors import InvalidInput, OvError
from ov.files import looks_binary
from ov.ingest.model import SourceFile, Skipped
from ov.uri import sanitize_segment

VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"})
# Binary formats a parser reads; every other binary file is skipped.
PARSEABLE_BINARY = frozenset({".pdf"})
_SNIFF_BYTES = 8192


class FetchError(OvError):
    """A URL could not be fetched (timeout, HTTP error, too large, not http)."""

    code = "fetch_failed"


@dataclass
class Collected:
    name: str  # default name of the import root
    kind: str  # "file" | "directory" | "http"
    uri: str  # absolute path or URL of what was added
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
) -> Collected:
    if is_url(source):
        return fetch_url(source, timeout=url_timeout, max_bytes=url_max_bytes)
    if "://" in source:
        raise InvalidInput(f"{source!r} is neither a local path nor an http(s) URL")
    return collect_path(Path(source), include=include, exclude=exclude, max_bytes=max_bytes)


def collect_path(path: Path, *, include: Sequence[str] = (), exclude: Sequence[str] = (), max_bytes: int) -> Collected:
    if not os.path.lexists(path):
        raise InvalidInput(f"{path} does not exist", hint="give a file, a directory or an http(s) URL")
    path = path.absolute()
    if path.is_symlink():
        path = path.resolve()
    if path.is_file():
        collected = Collected(_stem_name(path.name), "file", str(path))
        _add_file(collected, path, path.name, max_bytes)
        return collected
    if not path.is_dir():
        raise InvalidInput(f"{path} is neither a file nor a directory")
    collected = Collected(sanitize_segment(path.name), "directory", str(path))
    _walk(collected, path, _patterns(include), _patterns(exclude), max_bytes)
    if not collected.files and not collected.skipped:
        raise InvalidInput(f"{path} holds no files")
    return collected


def fetch_url(url: str, *, timeout: float, max_bytes: int) -> Collected:
    """Download one document; the whole fetch is bounded in time and size."""
    import urllib.error
    import urllib.request

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInput(f"{url!r} is not an http(s) URL")
    request = urllib.request.Request(url, headers={"User-Agent": "ov (+https://github.com/ovctx/ov)"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise FetchError(f"{url} is {int(declared)} bytes, over the {max_bytes}-byte limit", hint="raise ingest.url_max_bytes")
            data = response.read(max_bytes + 1)
            if len(data) > max_bytes:
                raise FetchError(f"{url} is larger than the {max_bytes}-byte limit", hint="raise ingest.url_max_bytes")
            content_type = response.headers.get_content_type()
            final_url = response.geturl()
    except urllib.error.HTTPError as exc:
        raise FetchError(f"{url} answered HTTP {exc.code} {exc.reason}") from None
    except (TimeoutError, OSError) as exc:  # URLError is an OSError; socket timeouts too
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise FetchError(f"fetching {url} took longer than {timeout:g}s", hint="raise ingest.url_timeout") from None
        raise FetchError(f"cannot fetch {url}: {reason}") from None
    name = _url_name(final_url, content_type)
    collected = Collected(_stem_name(name), "http", url)
    collected.files.append(SourceFile(name, data, "http", final_url, content_type))
    return collected


def _walk(collected: Collected, root: Path, include, exclude, max_bytes: int) -> None:
    from dulwich.ignore import IgnoreFilterManager  # Deferred: only directory ingest needs it.

    gitignore = IgnoreFilterManager(str(root), [], False)
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        keep = []
        for name in sorted(dirnames):
            rel = rel_dir + name
            reason = _skip_dir_reason(root / rel, name, rel, gitignore, exclude)
            if reason:
                collected.skipped.append(Skipped(rel + "/", reason))
            else:
                keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            rel = rel_dir + name
            reason = _skip_file_reason(root / rel, name, rel, gitignore, include, exclude)
            if reason:
                collected.skipped.append(Skipped(rel, reason))
            else:
                _add_file(collected, root / rel, rel, max_bytes)


def _skip_dir_reason(path: Path, name: str, rel: str, gitignore, exclude) -> str | None:
    if name in VCS_DIRS:
        return "version-control folder"
    if path.is_symlink():
        return "symbolic link"
    if name.startswith("."):
        return "hidden"
    if gitignore.is_ignored(rel + "/"):
        return "ignored by .gitignore"
    if exclude and exclude.is_ignored(rel + "/"):
        return "excluded by --exclude"
    return None


def _skip_file_reason(path: Path, name: str, rel: str, gitignore, include, exclude) -> str | None:
    if path.is_symlink():
        return "symbolic link"
    if name.startswith("."):
        return "hidden"
    if gitignore.is_ignored(rel):
        return "ignored by .gitignore"
    if exclude and exclude.is_ignored(rel):
        return "excluded by --exclude"
    if include and not include.is_ignored(rel):
        return "not matched by --include"
    return None


def _add_file(collected: Collected, path: Path, rel: str, max_bytes: int) -> None:
    try:
        size = path.stat().st_size
        if size > max_bytes:
            collected.skipped.append(Skipped(rel, f"larger than {max_bytes} bytes ({size})"))
            return
        data = path.read_bytes()
    except OSError as exc:
        collected.skipped.append(Skipped(rel, f"unreadable: {exc.strerror or exc}", failed=True))
        return
    if path.suffix.lower() not in PARSEABLE_BINARY and looks_binary(data[:_SNIFF_BYTES] if len(data) > _SNIFF_BYTES else data):
        collected.skipped.append(Skipped(rel, "binary file"))
        return
    collected.files.append(SourceFile(rel, data, "file", str(path)))


def _patterns(patterns: Sequence[str]):
    """Gitignore-style patterns (comma-separated values allowed) as one dulwich filter, or None."""
    from dulwich.ignore import IgnoreFilter

    items = [p.strip() for value in patterns for p in value.split(",") if p.strip()]
    return IgnoreFilter([p.encode() for p in items]) if items else None


def _stem_name(filename: str) -> str:
    stem = filename.rsplit(".", 1)[0] if "." in filename.strip(".") else filename
    return sanitize_segment(stem)


def _url_name(url: str, content_type: str) -> str:
    parts = urlsplit(url)
    last = parts.path.rstrip("/").rsplit("/", 1)[-1]
    if not last:
        last = parts.hostname or "page"
    if "." not in last:
        last += {"text/html": ".html", "application/pdf": ".pdf", "text/markdown": ".md"}.get(content_type, ".txt")
    return last
