"""Pattern search over the work tree: ``ov grep`` (regex on lines) and ``ov glob`` (path patterns)."""

from __future__ import annotations

import re
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass

from ov.errors import InvalidInput, quote
from ov.files import looks_binary
from ov.store.store import Store
from ov.uri import SCHEME, VikingURI, parse

# Files larger than this are not scanned by grep (they are rare in a text store and slow).
GREP_MAX_FILE_BYTES = 8 * 1024 * 1024
# A pattern whose nested repeats backtrack exponentially ("(a|aa)+$") would hold a process (an
# MCP server's tool call among them) for ever: a whole grep gets this long to match.
GREP_SECONDS = 10.0
_WILDCARDS = set("*?[")


@dataclass(frozen=True)
class GrepMatch:
    """One line that `ov grep` matched."""

    uri: str
    line: int
    text: str


def grep(
    store: Store,
    pattern: str,
    base: VikingURI,
    *,
    ignore_case: bool = False,
    show_all: bool = False,
    limit: int | None = None,
) -> Iterator[GrepMatch]:
    """Lines matching ``pattern`` in the text files below ``base``, in path order.

    Matched by the ``regex`` package, ``re``'s syntax with a time limit (:data:`GREP_SECONDS`)
    and a matcher that avoids much of the backtracking that makes ``re`` hang."""
    import regex as engine  # Deferred: only grep needs it.

    try:
        compiled = engine.compile(pattern, engine.IGNORECASE if ignore_case else 0)
    except (engine.error, OverflowError) as exc:  # OverflowError: a repeat count such as a{99999999999}
        raise InvalidInput(f"invalid pattern {quote(pattern)} (a regular expression): {exc}") from None
    except RecursionError:  # the parser recurses once per nested group: "((((...", 10,000 deep
        raise InvalidInput(f"the regular expression {quote(pattern)} nests too deeply") from None
    except MemoryError:  # nested counted repeats are expanded when compiled: (?:(?:a{1000}){1000}){100}
        raise InvalidInput(f"the regular expression {quote(pattern)} is too large to compile") from None
    deadline = time.monotonic() + GREP_SECONDS
    found = 0
    for uri, path in store.walk_files(base, show_all=show_all):
        try:
            st = path.lstat()
            # Only regular files are read: a named pipe put there by hand would block for ever.
            if not stat.S_ISREG(st.st_mode) or st.st_size > GREP_MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if looks_binary(data):
            continue
        for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
            try:
                hit = compiled.search(line, timeout=max(deadline - time.monotonic(), 0.0))
            except TimeoutError:
                raise InvalidInput(
                    f"grep of {quote(pattern)} took more than {GREP_SECONDS:g} s (stopped at {uri}:{number})",
                    hint="nested repeats such as (a|aa)+ try exponentially many ways to match: simplify the pattern,"
                    " or grep fewer files with --uri",
                ) from None
            if hit:
                yield GrepMatch(str(uri), number, line)
                found += 1
                if limit is not None and found >= limit:
                    return


def glob(store: Store, pattern: str, base: VikingURI, *, show_all: bool = False) -> list[str]:
    """URIs below ``base`` whose path relative to it matches ``pattern``.

    ``*`` matches within one segment, ``**`` any number of segments, ``?`` one
    character, ``[abc]`` a character class. A pattern may also be a whole
    ``viking://`` URI, whose fixed leading segments then become the base.
    """
    if pattern.startswith(SCHEME):
        base, pattern = _split_uri_pattern(pattern, store.identity.user)
    pattern = pattern.strip("/")
    if not pattern:
        raise InvalidInput("empty glob pattern")
    regex = compile_glob(pattern)
    matches = []
    for uri, _path in store.walk_files(base, show_all=show_all):
        if regex.fullmatch(uri.relative_to(base)):
            matches.append(str(uri))
    # Directories match too (e.g. `resources/*`), without walking into them twice.
    for uri in _dirs(store, base, show_all):
        if regex.fullmatch(uri.relative_to(base)):
            matches.append(str(uri))
    return sorted(set(matches))


def compile_glob(pattern: str) -> re.Pattern[str]:
    """Translate a path glob to a regex (Python 3.11 has no ``**``-aware translator)."""
    out = []
    parts = pattern.split("/")
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
            continue
        i = 0
        seg = []
        while i < len(part):
            ch = part[i]
            if ch == "*":
                seg.append("[^/]*")
            elif ch == "?":
                seg.append("[^/]")
            elif ch == "[":
                end = part.find("]", i + 2)
                if end == -1:
                    seg.append(re.escape(ch))
                else:
                    body = part[i + 1 : end]
                    if body.startswith("!"):
                        body = "^" + body[1:]
                    seg.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
                    i = end
            else:
                seg.append(re.escape(ch))
            i += 1
        out.append("".join(seg) + ("" if last else "/"))
    try:
        return re.compile("".join(out))
    except (re.error, OverflowError, RecursionError) as exc:
        raise InvalidInput(f"invalid glob pattern {quote(pattern)}: {exc}") from None


def _split_uri_pattern(pattern: str, user: str) -> tuple[VikingURI, str]:
    segments = pattern[len(SCHEME) :].split("/")
    fixed = []
    for seg in segments:
        if _WILDCARDS & set(seg):
            break
        fixed.append(seg)
    rest = "/".join(segments[len(fixed) :])
    return parse(SCHEME + "/".join(fixed), user), rest


def _dirs(store: Store, base: VikingURI, show_all: bool) -> Iterator[VikingURI]:
    for child in store.entries(base, show_all):
        if child.entry.is_dir:
            yield child.uri
            yield from _dirs(store, child.uri, show_all)
