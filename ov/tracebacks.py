"""A pasted traceback, read for what it asks: its error and the files it names.

"why does this fail?" and forty lines of stack say two things: the error (``KeyError: 'uri'``,
``TypeError: x is not a function``) and the files it went through. The rest, the frames' own words
(``File``, ``line``, ``in``, ``at``, function names, the source lines Python quotes, the carets under
them), matches every file of a store of code a little and none well: the prompt scored below the
hook's cut-off and got nothing, though the store held the very file and line. :func:`focus` keeps
the text around the traceback and its error lines, and puts the files of the frames after them as
paths with their lines (``shop/cart.py:40``), which the query then names (:mod:`ov.retrieval.named`):
a named file comes first whatever its words match, and shows the lines around the one named.

A frame is Python's ``File "x.py", line 12, in f`` (and the indented lines under it), pytest's
``tests/test_cart.py:12: in test_total`` (its source lines, indented or marked ``>``, are left out
too; its ``E`` lines are the error), or a line that opens with ``at`` and ends in a file and a line
(JavaScript ``at f (src/app.js:10:5)``, Java ``at a.B.c(B.java:42)``, Rust ``at src/main.rs:10:5``). Text with fewer than two frames (one, under
Python's ``Traceback (most recent call last):``) is not a traceback and stays as it is. Files of
installed packages and of the runtime (``site-packages``, ``node_modules``, ``<frozen ...>``,
``node:internal``) are not the user's and are left out.

pytest's report of one failing assert has one frame (``tests/test_uri.py:41: AssertionError``) under
its error lines (``E       assert None == ...``): those ``E`` lines make it a traceback, and the lines
pytest prints around its run (the progress lines ``tests/test_store.py ....  [ 40%]``, its platform
and rules) are left out with its source lines: they named every test file it ran.

A paste longer than a query may be (:func:`bounded`: logs, a whole test run) keeps what it asks and
where it failed, not its opening: the question after it (the last lines that read as sentences, not
as a log's), the lines that say what failed (``FAILED``, ``ERROR``, ``KeyError: ...``, a file and
its line), and the sentences around them ("here is the log:"); the opening as far as it fits only
when none of these is found. A log's lines repeat a few words many times, which outweighed the question's. A question after 4,000 characters of a worker's log
was never searched, and a test run's failing file was past the cut.

The recognition lives in the basics, not in retrieval, because memory extraction needs it too:
:func:`span` tells it which lines of a message are a pasted traceback, not the user's words
(:mod:`ov.sessions.memory.pasted`).
"""

from __future__ import annotations

from ov.regex import LazyPattern

_PYTHON_FRAME = LazyPattern(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)')
# The file is the line's last word: after a space or "(", before ":line" and an optional ":column";
# it may open with a drive or a scheme (a Windows drive, file:///, node:).
_AT_FRAME = LazyPattern(r"^\s*at\s(?:.*[\s(])?(?P<path>(?:[A-Za-z][\w+.-]*:/*)?[^\s():]+):(?P<line>\d+)(?::\d+)?\)?\s*$")
# pytest's frames: "tests/test_cart.py:12: in test_total", and the failure's "shop/cart.py:40: KeyError".
_PYTEST_FRAME = LazyPattern(r"^(?P<path>[^\s:\"'<>]+\.[A-Za-z]\w{0,15}):(?P<line>\d+):(?: in \S+| [\w.]+)?\s*$")
# What pytest prints around its frames: the source (indented, or marked ">"), rules of "_" or "=",
# and around its run: progress lines ("tests/test_x.py ..F.  [ 40%]"), its platform and set-up.
_PYTEST_NOISE = LazyPattern(
    r"^(?:>|\s{4}|[_=]{2,}(?:\s|$)|(?:_ )+_\s*$|\s*$|\S+ [.FEsxXP]+\s*(?:\[\s*\d+%\])?\s*$"
    r"|(?:platform|rootdir|configfile|plugins|cachedir|collected|collecting) )"
)
# pytest's error lines, under the failing source line: "E       AssertionError: ...".
_PYTEST_ERROR = LazyPattern(r"^E\s{2,}\S")
_PYTHON_HEADER = LazyPattern(r"^\s*Traceback \(most recent call last\):\s*$")
# Python's lines between two tracebacks of one chain: they say how, not what.
_CHAIN = LazyPattern(r"^\s*(?:During handling of the above exception|The above exception was the direct cause)")
_NOT_THE_USERS = ("site-packages/", "dist-packages/", "node_modules/", "node:", "<", "/lib/python", "internal/")
MAX_FILES = 8  # the frames' files a focused traceback names, innermost first


def focus(text: str) -> str:
    """``text`` with its traceback reduced to the error lines and the frames' files, each with the
    line of its innermost frame (see the module docstring); ``text`` itself when it holds none."""
    if "\n" not in text.strip():
        return text  # one line: no traceback
    lines = text.splitlines()
    kept: list[str] = []
    files: list[str] = []
    frames = 0
    innermost_last = pytest = False  # Python and pytest print the innermost frame last; JavaScript and Java first
    under_frame = False  # the indented lines under a Python frame: its source line and carets
    for line in lines:
        found = _PYTHON_FRAME.match(line) or _PYTEST_FRAME.match(line)
        at = None if found else _AT_FRAME.match(line)
        if found or at:
            frames += 1
            frame = found or at
            files.append((frame.group("path").removeprefix("file://"), frame.group("line")))
            innermost_last = innermost_last or bool(found)
            pytest = pytest or (found is not None and not line.lstrip().startswith("File "))
            under_frame = bool(found)
            continue
        if under_frame and line[:1].isspace() and line.strip():
            continue
        under_frame = False
        if not (_PYTHON_HEADER.match(line) or _CHAIN.match(line)):
            kept.append(line)
    if not _enough(frames, lines):
        return text
    if pytest:  # its source lines come before each frame: indented, the failing one marked ">"
        kept = [line for line in kept if not _PYTEST_NOISE.match(line)]
    if innermost_last:
        files.reverse()
    innermost: dict[str, str] = {}  # each file once, innermost first, at its innermost frame's line
    for path, line in files:
        innermost.setdefault(path, line)
    own = [f"{path}:{innermost[path]}" for path in innermost if not any(mark in path.replace("\\", "/") for mark in _NOT_THE_USERS)]
    return "\n".join([*(line for line in kept if line.strip()), *own[:MAX_FILES]])


def _frame(line: str) -> bool:
    return bool(_PYTHON_FRAME.match(line) or _PYTEST_FRAME.match(line) or _AT_FRAME.match(line))


def _enough(frames: int, lines: list[str]) -> bool:
    """Whether ``frames`` frames among ``lines`` make a traceback (see the module docstring)."""
    return frames >= 2 or (frames == 1 and any(_PYTHON_HEADER.match(line) or _PYTEST_ERROR.match(line) for line in lines))


def is_header(line: str) -> bool:
    """Whether ``line`` is Python's "Traceback (most recent call last):", which says nothing of the error."""
    return bool(_PYTHON_HEADER.match(line))


def span(lines: list[str]) -> tuple[int, int] | None:
    """The (first, last) index of the traceback among ``lines``, or None when they hold none: from
    Python's header or the first frame to the error lines after the last frame (Python and pytest
    print them there; JavaScript and Java before the frames, where the first line is taken too)."""
    frames = [i for i, line in enumerate(lines) if _frame(line)]
    if not _enough(len(frames), lines):
        return None
    first = next((i for i, line in enumerate(lines[: frames[0]]) if _PYTHON_HEADER.match(line)), frames[0])
    above = lines[first - 1] if first == frames[0] and first > 0 else ""
    if _AT_FRAME.match(lines[first]) and ":" in above and not above[:1].isspace():
        first -= 1  # "TypeError: x is not a function" over JavaScript's (or Java's) "at" frames
    last = frames[-1]
    # The frame's own indented lines (source, carets), then its error up to the next blank line.
    while last + 1 < len(lines) and lines[last + 1].strip():
        last += 1
    return first, last


# A line of a log or a tool's output rather than of a sentence: a number, a level or a rule first,
# a time of day, "key=value", a progress count, a path with its line, or mostly other than words.
_LOGGED = LazyPattern(
    r"^\s*(?:[\d\[(]|\S*[=_-]{3,}|(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL)\b)"
    r"|\b\d{1,2}:\d\d(?::\d\d)?\b|\w=\S|\[\s*\d+%\]|\S\.\w+:\d"
)
# A line that says what failed: pytest's and unittest's verdicts, an error's name, a file and its line.
_FAILED = LazyPattern(
    r"\b(?:FAILED|FAIL|ERROR|FATAL|PANIC|panicked|Traceback)\b|\b\w*(?:Error|Exception|Failure)\b|\S\.[A-Za-z]\w{0,15}:\d+"
)
_PLAIN = LazyPattern(r"[^\W\d_][\w'’-]*[,.;:?!]?")
QUESTION_CHARS = 500  # at most this much of a paste's end is read as the question after it


def _sentence(line: str) -> bool:
    """Whether ``line`` reads as a sentence someone wrote, not as a log's or a tool's output."""
    words = line.split()
    return bool(words) and not _LOGGED.search(line) and sum(1 for word in words if _PLAIN.fullmatch(word)) >= 0.7 * len(words)


def bounded(text: str, chars: int) -> str:
    """``text`` on one line, within ``chars`` characters: all of it when it fits; else the question
    after a paste (its last lines that are sentences, :data:`QUESTION_CHARS` at most), then the
    lines that say what failed (the last first), then the opening (when neither was found; else
    the opening's sentences), as far as each fits, in the order they came (see the module docstring). One line too long is cut at a space near its end
    (a word cut in two is a word of no record)."""
    words = " ".join(text.split())
    if len(words) <= chars:
        return words
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    chosen: set[int] = set()
    left = chars

    def take(index: int) -> bool:
        nonlocal left
        if index in chosen or len(lines[index]) + 1 > left:
            return False
        chosen.add(index)
        left -= len(lines[index]) + 1
        return True

    if len(lines) > 1:
        asked = 0
        for index in range(len(lines) - 1, 0, -1):
            if not _sentence(lines[index]) or asked + len(lines[index]) > QUESTION_CHARS or not take(index):
                break
            asked += len(lines[index])
        for index in range(len(lines) - 1, -1, -1):
            if _FAILED.search(lines[index]):
                take(index)
        # The opening, when nothing else was found; else only its sentences ("here is the log:"):
        # a log's lines are the same few words many times, which outweighed the question's.
        found = bool(chosen)
        for index in range(len(lines)):
            if (not found or _sentence(lines[index])) and not take(index) and index not in chosen:
                break
    kept = " ".join(lines[index] for index in sorted(chosen)) if chosen else words
    if len(kept) <= chars:
        return kept
    cut = kept[:chars]
    space = cut.rfind(" ", chars // 2)
    return cut[:space] if space > 0 else cut
