"""Pattern search over the work tree: ``ov grep`` (regex on lines) and ``ov glob`` (path patterns)."""

from __future__ import annotations

import re
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass

from ov.errors import InvalidInput, quote
from ov.files import looks_binary
from ov.lines import lines_of
from ov.store.store import Store
from ov.uri import SCHEME, VikingURI, nfc

# Files larger than this are not scanned by grep (they are rare in a text store and slow).
GREP_MAX_FILE_BYTES = 8 * 1024 * 1024
# A pattern whose nested repeats backtrack exponentially ("(a|aa)+$") would hold a process (an
# MCP server's tool call among them) for ever: each unit of work (a file grep searches, a name glob
# matches) gets this long to match (:class:`MatchTime`). Each unit, not the whole walk: a plain
# pattern over a large store (50,000 files: ~10 s on a busy laptop) ran out of a limit for the
# whole walk and was blamed as if it were stuck.
GREP_SECONDS = 10.0
# Lines searched at once before each is searched alone (a whole small file; a large one in parts,
# so that a few matches in a large file do not cost a search of each of its lines).
GREP_BLOCK_LINES = 1024
_WILDCARDS = set("*?[")
# How many items a pattern may hold once its counted repeats are written out: the regex package
# expands "x{n}" (and the minimum of "x{m,n}") when it compiles, ~250 bytes an item (a million:
# ~0.5 s and 250 MB), so nested counts such as (?:(?:a{200}){200}){100} (4 million) took seconds
# and a gigabyte before they could be refused.
GREP_MAX_EXPANDED = 1_000_000
# The longest pattern grep takes. The regex package readies a literal run of a pattern (a string,
# escaped or one-character classes: "="*3000, "[=]"*1500) for a fast search with a table it builds
# in time cubic in the run's length, inside the first search and deaf to its time limit (1,000
# characters: ~1.4 s, 1,500: ~3.7 s, 3,000: ~30 s, measured), so such a pattern held a grep far past
# GREP_SECONDS. At this length the table costs ~0.15 s.
GREP_MAX_PATTERN = 500
_REPEAT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


@dataclass(frozen=True)
class GrepMatch:
    """One line that `ov grep` matched."""

    uri: str
    line: int
    text: str


class MatchTime:
    """The time the matcher may spend on one unit of work (a file grep searches, a name glob
    matches): :data:`GREP_SECONDS`, less what its searches took. Counted as they take it, not
    since the unit began: the caller may hold grep's generator between two matches for any time."""

    def __init__(self) -> None:
        self.left = GREP_SECONDS

    def search(self, match, text: str, *, share: float = 1.0):
        """``match(text, timeout=...)`` (a compiled pattern's search or fullmatch) with ``share`` of
        the time left; TimeoutError past it (the time taken is counted either way)."""
        started = time.monotonic()
        try:
            return match(text, timeout=max(self.left, 0.0) * share)
        finally:
            self.left -= time.monotonic() - started


def grep(
    store: Store,
    pattern: str,
    base: VikingURI,
    *,
    ignore_case: bool = False,
    show_all: bool = False,
    limit: int | None = None,
) -> Iterator[GrepMatch]:
    """Lines matching ``pattern`` in the text files below ``base``, in path order; other users'
    spaces are left out of a grep of the root or ``viking://user`` (``Store.leave_out``, which records them).

    Matched by the ``regex`` package, ``re``'s syntax with a time limit for each file
    (:data:`GREP_SECONDS`) and a matcher that avoids much of the backtracking that makes ``re`` hang."""
    import regex as engine  # Deferred: only grep needs it.

    _refuse_long(pattern, "regular expression", "grep", "grep for a shorter part of the text; a run of one character can be counted, as in ={3000}")
    if expanded_size(pattern) > GREP_MAX_EXPANDED:
        raise InvalidInput(
            f"the regular expression {quote(pattern)} is too large to compile: its counted repeats"
            f" make more than {GREP_MAX_EXPANDED:,} items",
            hint="use smaller counts, or a range such as {1,1000} (only a repeat's minimum is written out)",
        )
    try:
        compiled = engine.compile(nfc(pattern), engine.IGNORECASE if ignore_case else 0)
    except (engine.error, OverflowError) as exc:  # OverflowError: a repeat count such as a{99999999999}
        raise InvalidInput(f"invalid pattern {quote(pattern)} (a regular expression): {exc}") from None
    except RecursionError:  # the parser recurses once per nested group: "((((...", 10,000 deep
        raise InvalidInput(f"the regular expression {quote(pattern)} nests too deeply") from None
    except MemoryError:  # nested counted repeats are expanded when compiled: (?:(?:a{1000}){1000}){100}
        raise InvalidInput(f"the regular expression {quote(pattern)} is too large to compile") from None
    # One search of a block of lines first, with ^ and $ at every line: a block it does not match
    # has no matching line, and most files, and most of a large file, match nothing. A search per
    # line costs ~3 us with the matcher's time limit (ten times what it costs without).
    whole = None if _lines_only(pattern) else engine.compile(nfc(pattern), (engine.IGNORECASE if ignore_case else 0) | engine.MULTILINE)
    found = 0
    for uri, path in store.walk_files(base, show_all=show_all, leave_out=store.leave_out(base)):
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
        text = data.decode("utf-8")
        lines = lines_of(text)
        # Searched in NFC, as the pattern is, and shown as written: "résumé" typed composed matches
        # a line written decomposed (an "e" and a combining accent, as macOS file names give it).
        searched = lines if text.isascii() else [nfc(line) for line in lines]
        clock = MatchTime()
        for first in range(0, len(lines), GREP_BLOCK_LINES):
            block = searched[first : first + GREP_BLOCK_LINES]
            try:
                # Joined by "\n" alone: the only line end ^ and $ know, where splitlines knows
                # eleven. Half the time left at most: a block that takes longer is searched line by
                # line in the rest, which names the line the pattern is stuck on.
                skip = whole is not None and not clock.search(whole.search, "\n".join(block), share=0.5)
            except TimeoutError:
                whole, skip = None, False
                # The matcher's time limit overshoots (0.25 s asked, 0.67 s taken, measured): the
                # block could use up the whole limit, and the first line would be blamed. The line
                # by line search has half the limit from now, to name the line that is stuck.
                clock.left = max(clock.left, GREP_SECONDS / 2)
            if skip:
                continue
            for number, line in enumerate(block, start=first + 1):
                try:
                    hit = clock.search(compiled.search, line)
                except TimeoutError:
                    raise InvalidInput(
                        f"grep of {quote(pattern)} took more than {GREP_SECONDS:g} s in one file (stopped at {uri}:{number})",
                        hint="nested repeats such as (a|aa)+ try exponentially many ways to match: simplify the pattern",
                    ) from None
                if hit:
                    yield GrepMatch(str(uri), number, lines[number - 1])
                    found += 1
                    if limit is not None and found >= limit:
                        return


def _refuse_long(pattern: str, kind: str, command: str, hint: str) -> None:
    """InvalidInput for a pattern longer than :data:`GREP_MAX_PATTERN`: the matcher's time limit
    cannot hold for it."""
    if len(pattern) > GREP_MAX_PATTERN:
        raise InvalidInput(f"the {kind} {quote(pattern)} is too long: {command} takes at most {GREP_MAX_PATTERN:,} characters", hint=hint)


def _lines_only(pattern: str) -> bool:
    r"""Whether ``pattern`` could match a line alone and yet nowhere in the file of its lines
    joined by newlines, so that a search of the whole file cannot stand for the lines'.

    Elsewhere the joined file only adds a newline where a line ended, which ^ and $ (multi-line)
    and \b read as a line's end, and which other items can only match more. Not so for anchors
    where a search starts (\A, \Z, \G), lookarounds other than a positive lookahead (and that
    one with a backreference), inline flags, and items that never give back what they took
    (atomic groups, possessive repeats, backtracking verbs): "a[^x]*+$" takes a line's newline
    and then cannot end there.
    """
    if any(mark in pattern for mark in ("\\A", "\\Z", "\\z", "\\G", "*+", "++", "?+", "}+", "(*")):
        return True  # (*PRUNE), (*SKIP) and the like do not give back either
    if "(?=" in pattern and re.search(r"\\[1-9]|\\g|\(\?P=", pattern):
        return True  # a lookahead is atomic: what it captured across a newline a backreference holds
    return re.search(r"\(\?(?![:=]|P[<=])", pattern) is not None


def expanded_size(pattern: str) -> int:
    """About how many items ``pattern`` holds with each counted repeat written out ``m`` times
    (``x{m}``, ``x{m,n}``, ``x{m,}``), nested ones multiplied: an upper bound that never compiles.
    Alternatives add up; ``*``, ``+`` and ``?`` are not written out by the engine."""
    sizes = [0]  # the size of each open group so far, outermost first
    last = 0  # the size of the item a repeat would apply to
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            # An escape is one item; \p{L}, \N{NAME}, \x{263a}, \g<1> carry their argument with them.
            i += 2
            if i < n and pattern[i - 1] in "pPNxugk" and pattern[i] in "{<":
                close = pattern.find("}" if pattern[i] == "{" else ">", i)
                i = n if close < 0 else close + 1
            last = 1
            sizes[-1] += 1
            continue
        if ch == "[":  # a class is one item, whatever it lists
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            last = 1
            sizes[-1] += 1
            continue
        if ch == "(":
            sizes.append(0)
            last = 0
            if pattern.startswith("?", i + 1):  # (?:, (?P<name>, (?<=, (?i): a group's kind, not items
                i += 2
                while i < n and pattern[i] not in ":>=!)":
                    i += 1
                if i < n and pattern[i] != ")":
                    i += 1
                continue
        elif ch == ")":
            last = sizes.pop() if len(sizes) > 1 else 0
            sizes[-1] += last
        elif ch == "{":
            repeat = _REPEAT.match(pattern, i)
            if repeat and (repeat.group(1) or repeat.group(2)):
                count = int(repeat.group(1) or 0)
                sizes[-1] += last * (count - 1) if count else -last
                last *= count
                i = repeat.end()
                continue
            last = 1
            sizes[-1] += 1
        elif ch not in "*+?|":
            last = 1
            sizes[-1] += 1
        i += 1
    return sum(sizes)


def glob(store: Store, pattern: str, base: VikingURI, *, show_all: bool = False) -> list[str]:
    """URIs below ``base`` whose path relative to it matches ``pattern``.

    ``*`` matches within one segment, ``**`` any number of segments, ``?`` one
    character, ``[abc]`` a character class. A pattern may also be a whole
    ``viking://`` URI, whose fixed leading segments then become the base. Other users' spaces
    are left out of a base that is the root or ``viking://user``, as :func:`grep` leaves them out.
    """
    base, pattern = glob_base(store, pattern, base)
    pattern = pattern.strip("/")
    if not pattern:
        raise InvalidInput("empty glob pattern")
    _refuse_long(pattern, "glob pattern", "glob", "glob for a shorter path, or from a folder nearer to it (a whole viking:// URI's fixed part does not count)")
    # Names compared in NFC, as URIs are: `café*` finds a file stored under a decomposed name.
    compiled = compile_glob(nfc(pattern))
    # Each star may match any run of a name, so a name with many of them ("*a*a*a*b") tries
    # polynomially many ways to match, with an exponent of their number: each name has the time
    # grep gives each file, and the regex package's matcher stops there.

    def matches(uri: VikingURI) -> bool:
        try:
            return MatchTime().search(compiled.fullmatch, nfc(uri.relative_to(base))) is not None
        except TimeoutError:
            raise InvalidInput(
                f"glob of {quote(pattern)} took more than {GREP_SECONDS:g} s on one name (stopped at {uri})",
                hint="every `*` in a name may match any part of it, so many in one name try very many ways to match:"
                " use fewer, or glob fewer files with {uri}",
                arguments={"uri"},
            ) from None

    leave_out = store.leave_out(base)
    found = {str(uri) for uri, _path in store.walk_files(base, show_all=show_all, leave_out=leave_out) if matches(uri)}
    # Directories match too (e.g. `resources/*`), without walking into them twice.
    found.update(str(uri) for uri in _dirs(store, base, show_all, leave_out) if matches(uri))
    return sorted(found)


def compile_glob(pattern: str):
    """Translate a path glob to a pattern of the ``regex`` package (Python 3.11 has no
    ``**``-aware translator), matched with a time limit. Stars in a row are one star, and ``**``
    segments in a row one ``**``: each more in a row only multiplied the ways to match."""
    import regex as engine  # Deferred: only grep and glob need it.

    out = []
    parts: list[str] = []
    for part in pattern.split("/"):
        if part != "**" or parts[-1:] != ["**"]:
            parts.append(part)
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
                if not seg or seg[-1] != "[^/]*":
                    seg.append("[^/]*")
            elif ch == "?":
                seg.append("[^/]")
            elif ch == "[":
                end = part.find("]", i + 2)
                if end == -1:
                    seg.append(engine.escape(ch))
                else:
                    body = part[i + 1 : end]
                    if body.startswith("!"):
                        body = "^" + body[1:]
                    seg.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
                    i = end
            else:
                seg.append(engine.escape(ch))
            i += 1
        out.append("".join(seg) + ("" if last else "/"))
    try:
        return engine.compile("".join(out))
    except (engine.error, OverflowError, RecursionError) as exc:
        raise InvalidInput(f"invalid glob pattern {quote(pattern)}: {exc}") from None


def glob_base(store: Store, pattern: str, base: VikingURI) -> tuple[VikingURI, str]:
    """The base a glob walks from and the pattern relative to it: ``base``, unless ``pattern`` is
    a whole URI, whose segments up to the first wildcard are the base."""
    if not pattern.startswith(SCHEME):
        return base, pattern
    segments = pattern[len(SCHEME) :].split("/")
    fixed = []
    for seg in segments:
        if _WILDCARDS & set(seg):
            break
        fixed.append(seg)
    rest = "/".join(segments[len(fixed) :])
    return store.uri(SCHEME + "/".join(fixed)), rest


def _dirs(store: Store, base: VikingURI, show_all: bool, leave_out: frozenset[VikingURI]) -> Iterator[VikingURI]:
    for child in store.entries(base, show_all, leave_out):
        if child.entry.is_dir:
            yield child.uri
            yield from _dirs(store, child.uri, show_all, leave_out)
