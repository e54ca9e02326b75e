"""Merging new facts into an existing memory, field by field.

Each schema field names its merge op:

- ``immutable``: the existing value stays (it usually names the file);
  the incoming one is used only when there was none.
- ``replace``: the incoming value wins.
- ``patch``: text merged line by line (see :func:`patch_text`).

A patch never rewrites what it does not understand: it appends new lines,
skips lines already present, and replaces a line only when a correction
identifies it, or when the extractor names the lines a new one supersedes
(the same key, the opposite preference: see :func:`apply_supersede`). That keeps hand edits safe and makes every result
reproducible from the same inputs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ov.errors import InvalidInput
from ov.sessions.memory import text as tx
from ov.sessions.memory.lines import (
    KEY_RE,
    content_words,
    is_item,
    normalise,
    present,
    said_again,
    split_item,
)
from ov.sessions.memory.now import holds_now, said_of_it, without_since
from ov.sessions.memory.patch_ops import Supersede, Swap, parse_ops
from ov.sessions.memory.probes import matches, statements
from ov.sessions.memory.schema import MemorySchema
from ov.uri import nfc

# "Actually, X" / "Correction: X": X replaces the line it contradicts; the marker is dropped.
_RESTATE_RE = re.compile(r"^(?:actually|correction)\b[\s,:;-]*(?P<rest>.+)$", re.IGNORECASE)
# "Not X" / "No longer X": the line is kept as written and replaces the line saying X.
_NEGATE_RE = re.compile(r"^(?:not|no longer)\s+(?P<rest>.+)$", re.IGNORECASE)
# The words that say the value after them is the one left behind by a change ("switched from X",
# "replaced X with", "instead of X"): such a line is the record of the change, not a use of X.
_LEFT_BEHIND = r"(?:(?:switched|moved|migrated|changed|gone|went)(?:\s+over)?\s+from|replaced|swapped|instead\s+of|rather\s+than)\s+"
# A value said with its scope ("Go for the CLI", "Drone for the mobile app"): changed only there.
SCOPE_RE = re.compile(r"(?i)\s(?:for|in|on|at|with|across|except|but)\s")
# A correction may replace a line only if they share at least this share of its content words.
MIN_OVERLAP = 0.5
# What a thing is used or chosen for, after the thing ("Uses Jest for unit tests"; not "Works for
# Acme", where "for" follows the verb), or the role it fills ("Uses pytest as the unit test runner",
# rivals.ROLE): a correction for another purpose or role is another use.
_PURPOSE_RE = re.compile(
    r"(?i)^\S+\s+\S.*?\s(?:for\s+(?:(?:the|a|an|my|our|their|your)\s+)?|as\s+(?:the|my|our|their|your)\s+)(?P<p>\S.*?)[.!]?$"
)
# Told each statement a corrected line goes on with (see _other_clauses): True when the caller
# stores it in the file it belongs to, so the line's file no longer keeps it.
Moves = Callable[[str], bool]


def merge_fields(
    schema: MemorySchema, existing: Mapping[str, Any] | None, incoming: Mapping[str, Any], *, moves: Moves | None = None
) -> dict[str, str] | None:
    """The fields after merging ``incoming`` into ``existing``; None when nothing changed.

    ``existing`` is None for a memory that does not exist yet; the result is
    then ``incoming`` normalised (duplicate lines collapsed, corrections
    applied among themselves). add_only memories are never merged: the
    planner writes each one to a new file, so passing ``existing`` for them is
    a programming error. ``moves``: see :func:`patch_text`.
    """
    if schema.add_only and existing is not None:
        raise ValueError(f"{schema.memory_type} memories are add_only and never merged")
    unknown = sorted(set(incoming) - set(schema.field_names))
    if unknown:
        raise InvalidInput(f"a {schema.memory_type} memory has no field(s) {', '.join(unknown)}")
    base = {name: str(existing[name]) for name in schema.field_names if existing and existing.get(name) is not None}
    merged = dict(base)
    for spec in schema.fields:
        value = incoming.get(spec.name)
        if value is None:
            continue
        old = base.get(spec.name)
        if spec.merge_op == "patch":
            merged[spec.name] = patch_text(old or "", value, moves=moves)
            continue
        if not isinstance(value, str):
            raise InvalidInput(f"{schema.memory_type} field {spec.name!r} takes text, not {type(value).__name__}")
        if spec.merge_op == "immutable":
            merged[spec.name] = old if old and old.strip() else value.strip()
        else:
            merged[spec.name] = value.strip()
    if existing is not None and merged == base:
        return None
    return merged


def patch_text(old: str, incoming: str | Mapping[str, str] | Sequence[str | Mapping[str, str]], *, moves: Moves | None = None) -> str:
    """``old`` with the lines of ``incoming`` merged in.

    ``incoming`` is text, an explicit op ``{"replace": old_line, "with": new_line}``
    (``"with": ""`` deletes), an op ``{"supersede": [probe, ...], "with": new_line}``
    (see :func:`apply_supersede`; when no probe matches, ``new_line``, or the op's
    ``"otherwise"`` line, is merged as text below, or dropped with ``"append": false``; and
    nothing at all when a stored line matches a probe of its ``"present"``: that line already
    says it, or more, as "Prefers tabs over spaces" says "Prefers tabs"),
    an op ``{"swap": old_value, "to": new_value, "otherwise": line}`` (see
    :func:`apply_swap`; ``line`` is merged when no line names ``old_value``), or a list of them.
    For each incoming line, in order:

    1. a blank line is skipped;
    2. a line already present is skipped; lines are compared without bullet
       markers, case, repeated whitespace, trailing punctuation, articles or code's
       backticks, and with a habit's verb in its stem (:func:`said_again`); a stored line
       that opens with it, before a comma or a semicolon, says it already;
    3. a correction ("Actually, X", "Correction: X", "Not X", "No longer X")
       replaces the one line it contradicts: the line with the same ``key:``
       when X is ``key: value``; else the line equal to X; else the only line
       sharing the most content words with X, if it shares at least half of
       them. "Actually"/"Correction" is dropped from the stored line;
    4. anything else is appended.

    A line a correction replaces keeps the statements it goes on with (see :func:`_other_clauses`),
    each as a line of its own unless ``moves`` takes it to the file it belongs to.
    """
    lines = [line.rstrip() for line in old.strip().splitlines()]
    seen: set[str] | None = None
    for op in parse_ops(incoming):
        if isinstance(op, str) and not op.strip():
            continue
        if isinstance(op, str) and _plain(op):
            # The stored lines' normalised forms, kept while only appends change them: a long
            # answer merged into a long file normalises each stored line once, not once per line.
            seen = {said_again(line) for line in lines if line.strip()} if seen is None else seen
            said = said_again(op)
            # A stored line that opens with it says it too: "Always run tests with pytest -x -q"
            # after "Always run tests with `pytest -x -q`, don't run the whole suite".
            if said not in seen and not any(form.startswith((f"{said},", f"{said};")) for form in seen):
                _append(lines, op.rstrip())
                seen.add(said)
            continue
        seen = None  # any other op may replace or remove a line
        if isinstance(op, tuple):
            _apply_replace(lines, *op)
            continue
        if isinstance(op, Supersede):
            if any(is_item(line) and matches(split_item(line)[1], op.present) for line in lines):
                continue  # a stored line already says it, or more
            if not apply_supersede(lines, op.probes, op.line, moves) and op.append:
                lines[:] = patch_text("\n".join(lines), op.otherwise or op.line, moves=moves).splitlines()
            continue
        if isinstance(op, Swap):
            if not apply_swap(lines, op.old, op.new, op.otherwise or "") and op.otherwise:
                lines[:] = patch_text("\n".join(lines), op.otherwise, moves=moves).splitlines()
            continue
        line = op.rstrip()
        prefix, body = split_item(line)
        restated, negated = _RESTATE_RE.match(body), _NEGATE_RE.match(body)
        if restated:
            line, probe = prefix + _capitalise(restated.group("rest")), restated.group("rest")
        else:  # a negation ("No longer X"): a plain line was merged above (see _plain)
            probe = negated.group("rest") if negated else body
        if present(lines, split_item(line)[1]):
            continue
        target = find_target(lines, probe, negation=bool(negated) and not restated)
        if target is None:
            _append(lines, line)
        else:
            lines[target : target + 1] = [line, *_other_clauses(lines[target], lines, moves)]
    return "\n".join(lines).strip()


def as_correction(line: str) -> str:
    """A content ``line`` as the correction op of rule 3 of :func:`patch_text` ("- Is based in
    Oslo" -> "- Actually, is based in Oslo"): it takes the place of the line it contradicts."""
    prefix, body = split_item(line)
    return f"{prefix}Actually, {body[:1].lower()}{body[1:]}" if is_item(line) else line


def _plain(line: str) -> bool:
    """Whether ``line`` of incoming text is merged as it is (appended unless present): not a
    correction ("Actually, X", "No longer X"), or a heading."""
    body = split_item(line.rstrip())[1]
    return body.startswith("#") or not (_RESTATE_RE.match(body) or _NEGATE_RE.match(body))


def apply_supersede(lines: list[str], probes: Sequence[str], new: str, moves: Moves | None = None) -> bool:
    """Put ``new`` in place of the lines any probe matches; False (``lines`` untouched) when none does.

    A probe ending in ":" matches the lines with that key ("editor:" matches
    "- Editor: Neovim"); one starting with "*:" the lines with that value under
    any key ("*: neovim"); one ending in " #" the lines that go on with a version
    ("runs node #" matches "Runs Node 18"); one ending in "$" the lines equal to the rest ("prefers
    tabs$"); one holding "*" further on the lines it matches as a pattern, case and all ("Is a* at
    [A-Z]*" matches "Is a backend engineer at Stripe"); any other the lines that start with it, up to a word boundary ("works at" matches
    "Works at Acme", not "Works atop"). Lines are
    compared as :func:`normalise` makes them. The first match takes ``new``
    (in its bullet style, without an "Actually," marker) and the others are
    removed, so a key stated twice by older versions heals to one line. A matched line that goes
    on with a statement of its own, as older versions merged them ("Prefers tabs over spaces and
    my name is Ada"), keeps that statement, as a line of its own or, through ``moves``, in the
    file it belongs to: a correction ends what it names and nothing else (see :func:`_other_clauses`).
    """
    hits = [i for i, line in enumerate(lines) if is_item(line) and matches(split_item(line)[1], probes)]
    if not hits:
        return False
    prefix, body = split_item(new.rstrip())
    restated = _RESTATE_RE.match(body)
    body = _capitalise(restated.group("rest")) if restated else body
    line = (prefix or split_item(lines[hits[0]])[0]) + body
    others = [line_ for i, line_ in enumerate(lines) if i not in hits]
    kept = [clause for i in hits for clause in _other_clauses(lines[i], others, moves)]
    for i in reversed(hits[1:]):
        del lines[i]
    if present(others, body):
        lines[hits[0] : hits[0] + 1] = kept
    elif nfc(line) != nfc(lines[hits[0]]):  # the same line with its accent typed decomposed changes nothing
        lines[hits[0] : hits[0] + 1] = [line, *kept]
    return True


def apply_swap(lines: list[str], old: str, new: str, otherwise: str = "") -> bool:
    """Put ``new`` in place of the value ``old`` in each line that names it; False when none does.

    "I switched from Neovim to Zed" turns "Editor: Neovim" into "Editor: Zed" and "Uses Neovim
    daily" into "Uses Zed daily": the value is matched as whole words, case aside. Only a line of
    what holds now changes (:func:`ov.sessions.memory.now.holds_now`): one of the past, of another
    time or of someone else ("Used Neovim at their previous job", "Sam uses Neovim") is left alone,
    as is one that says the old value is no longer so ("No longer uses Neovim") or records a switch
    away from it ("Team switched from Python to Go"); one saying since when it holds loses that time
    ("Uses Neovim since 2019" -> "Uses Zed"); a line the swap makes a copy of another is removed. True too when a line already records this switch ("Team replaced Python with Go"
    for "we switched from Python to Go"), or the two values are one; ``otherwise``, the line saying
    the switch, takes the place of a record that says it without the new value's scope ("Go",
    where the switch is to "Go for the CLI").
    """
    def named(value: str) -> str:
        return tx.named(nfc(value))  # a whole name: "C" is not swapped inside "C++" or "C#"

    pattern = re.compile(named(old), re.IGNORECASE)
    items = [i for i, line in enumerate(lines) if is_item(line) and not _NEGATE_RE.match(split_item(line)[1]) and pattern.search(nfc(line))]
    # A recorded switch from ``old`` stays as it was said: swapped, "switched from Python to Go"
    # would say "from Go to Go". When it names ``new`` too, it already says this switch.
    left_behind = re.compile(_LEFT_BEHIND + named(old), re.IGNORECASE)
    records = [i for i in items if left_behind.search(nfc(lines[i]))]
    if normalise(old) == normalise(new):
        return True  # nothing changes, and no line is to be written saying a thing replaced itself
    said = any(re.search(named(new), nfc(lines[i]), re.IGNORECASE) for i in records)
    unscoped = SCOPE_RE.split(f"{new} ", maxsplit=1)[0].strip()
    if not said and otherwise and unscoped != new.strip():
        narrower = [i for i in records if re.search(named(unscoped), nfc(lines[i]), re.IGNORECASE)]
        if narrower:
            lines[narrower[0]] = otherwise.rstrip()
            said = True
    hits = [i for i in items if i not in records and holds_now(split_item(lines[i])[1]) and not said_of_it(split_item(lines[i])[1], pattern)]
    said_now = Counter(normalise(line) for line in lines if line.strip())  # (each line's once, not once per hit)
    scope = new.strip()[len(unscoped) :].strip()

    def put(match: re.Match[str]) -> str:
        # "Team uses Jenkins for CI" swapped to "GitHub Actions for CI" says "for CI" once
        after = match.string[match.end() :]
        return unscoped if scope and re.match(rf"\s+{re.escape(scope)}(?![\w-])", after, re.IGNORECASE) else new

    # A key's value that the old one is the short name of ("Editor: Sublime Text" for "Sublime"): the
    # whole name is the value replaced, not its first word ("Editor: Helix Text").
    # The name's further words are capitalised as said (case-sensitive): "zsh on macOS and bash on
    # servers" is no name, and its rest stays when zsh is swapped.
    whole = re.compile(named(old) + r"(?-i:(?:\s+[A-Z][\w+#.-]*)+)$", re.IGNORECASE)

    for i in reversed(hits):
        body = split_item(lines[i])[1]
        key = KEY_RE.match(body)
        colon = key.end("key") + 1 if key else 0
        value = nfc(body[colon:].strip()) if key else ""
        if key and not scope and whole.match(value):
            lines[i] = f"{split_item(lines[i])[0]}{body[:colon]} {new.strip()}"
            continue
        swapped = without_since(pattern.sub(put, nfc(lines[i]), count=1))  # (the new value holds since the switch)
        said_now[normalise(lines[i])] -= 1
        if said_now[normalise(swapped)] > 0:  # another line says it already
            del lines[i]
        else:
            lines[i] = swapped
            said_now[normalise(swapped)] += 1
    return bool(hits) or said


def _other_clauses(line: str, lines: Sequence[str], moves: Moves | None = None) -> list[str]:
    """The statements ``line`` makes after its first, each as a line in its bullet style, less those
    ``lines`` already hold and those ``moves`` takes elsewhere: "- Prefers tabs over spaces and my
    name is Ada" -> ["- My name is Ada"], or [] when ``moves("my name is Ada")`` is true (the
    planner stores it as "Name: Ada" in profile.md, as if just said).

    A statement starts after "; " or where :func:`ov.sessions.memory.text.clauses` starts a
    first-person clause ("and my", "but I"), so a list ("red, green, and blue") or a qualifier
    ("tabs, but only in Go") is part of the value it follows. ``moves`` is told each statement in
    the words an older version merged, first person included; one it does not take stays here.
    """
    prefix, body = split_item(line)
    if not is_item(line):
        return []
    kept: list[str] = []
    for part in statements(body)[1:]:
        if part and not (moves is not None and moves(part)) and not present([*lines, *kept], part):
            kept.append(prefix + _capitalise(part))
    return kept


def find_target(lines: Sequence[str], probe: str, *, negation: bool = False) -> int | None:
    """The index of the one line ``probe`` corrects, or None when it cannot be told. A
    ``negation``'s probe ("uses Jenkins" of "No longer uses Jenkins") corrects only a line naming
    what it negates, not one sharing its verb alone: "No longer uses bash" is no line saying that
    Jenkins is used, and was replaced by it (half of "uses Jenkins"'s words). One that names nothing,
    only points back ("works there" of "I no longer work there"), corrects the line its verb names."""
    items = [(i, split_item(line)[1]) for i, line in enumerate(lines) if is_item(line)]
    key = KEY_RE.match(probe)
    if key:
        wanted = normalise(key.group("key"))
        same_key = [i for i, body in items if (m := KEY_RE.match(body)) and normalise(m.group("key")) == wanted]
        if len(same_key) == 1:
            return same_key[0]
    exact = [i for i, body in items if normalise(body) == normalise(probe)]
    if len(exact) == 1:
        return exact[0]
    words = content_words(probe)
    if not words:
        return None
    # "Actually I use Playwright for e2e tests" is no correction of "Uses Jest for unit tests"
    purpose = _purpose(probe)
    items = [(i, body) for i, body in items if purpose is None or _purpose(body) in (None, purpose)]
    if negation and (negated := content_words(probe.split(None, 1)[1]) - _POINTING if " " in probe.strip() else set()):
        items = [(i, body) for i, body in items if negated & content_words(body)]
    scored = sorted(((len(words & content_words(body)) / len(words), i) for i, body in items), reverse=True)
    if not scored or scored[0][0] < MIN_OVERLAP or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


# Words that point back at what was said rather than name it: "there", "it", "that one".
_POINTING = frozenset(("there", "here", "it", "this", "that", "these", "those", "them", "one", "ones", "anymore"))


def _purpose(text: str) -> str | None:
    match = _PURPOSE_RE.match(text.strip())
    return normalise(match.group("p")) if match else None


def _apply_replace(lines: list[str], old: str, new: str) -> None:
    matches = [i for i, line in enumerate(lines) if line.strip() and normalise(line) == normalise(old)]
    new = new.rstrip()
    if not new.strip():
        for i in reversed(matches):
            del lines[i]
        return
    if not matches:
        if not present(lines, new):
            _append(lines, new)
        return
    if not split_item(new)[0]:
        new = split_item(lines[matches[0]])[0] + new.strip()  # keep the bullet style of the line it replaces
    if present([line for i, line in enumerate(lines) if i not in matches], new):
        for i in reversed(matches):
            del lines[i]
        return
    lines[matches[0]] = new
    for i in reversed(matches[1:]):
        del lines[i]


def _append(lines: list[str], line: str) -> None:
    # Markdown wants a blank line around a heading; incoming blank lines are dropped, so add it back.
    if lines and lines[-1].strip() and (_is_heading(line) or _is_heading(lines[-1])):
        lines.append("")
    lines.append(line)


def _is_heading(line: str) -> bool:
    return line.lstrip().startswith("#")


def _capitalise(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:]
