"""Stored preferences a new statement ends in the other files of its folder: a rival value of the same thing.

:mod:`ov.sessions.memory.choices` knows exclusive choices by name (tabs / spaces) and ends the
rival's line in the rival's own file, whose name it can tell. A value of any other kind has no
list of rivals, and its file is named for the old value, which only the stored lines say:

- a count or a number where the other says another ("line length 100" ends "line length 120"):
  the same thing can have one size at a time, so this holds however it is said for the same
  context; for one saying more or less of it ("4-space indentation in YAML files", "2-space
  indentation in YAML config files") only when said as a correction, as the narrower may be the
  wider one's exception ("Python 2 for legacy scripts", "Python 3 for scripts");
- another choice for the same purpose, role or context ("black for formatting" ends "ruff for
  formatting", "unittest as the test runner" "pytest as the test runner", "light roast coffee in
  the morning" "dark roast coffee in the morning"), when the new one is said as a correction ("actually", "now", "instead", ...):
  unmarked, two likings for the same context may both hold ("tea in the morning", "coffee in
  the morning");
- a switch from X to Y ("we switched from ruff to black") ends what said to prefer or use X, and so
  does X no longer used ("we don't use ruff anymore"; "poetry for packaging": only for packaging).

So the planner reads each file of the folder and asks :meth:`Rivalry.rules_out` of each line: a
liking it rules out becomes "No longer prefers ...", an instruction to use it is removed (an
instruction has no "no longer" of its own, as :func:`ov.sessions.memory.candidate.instruction_rival_amends`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ov.errors import InvalidInput
from ov.sessions.memory.choices import choice_of
from ov.sessions.memory.files import repaired_memory

# What a choice is for, after it: "ruff | for formatting", "4-space indentation | in YAML files", and
# the role it is chosen to fill, which says the same ("pytest | as the test runner", "as our CI"):
# one thing fills a role said with "the" or "our", not one said with "a" ("Go as a language"
# names a kind, of which one may like many), nor "as" inside a value ("the same as before").
ROLE = r"as\s+(?:the|my|our|your|their)\s"
_CONTEXT_RE = re.compile(rf"(?i)(?:,\s+|\s+(?=(?:in|for|on|with|when|while|during|inside|across|at)\s|{ROLE}))")
_NUMBER_RE = re.compile(r"(?i)\d+(?:[.,]\d+)*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b")
_WORD_RE = re.compile(r"[\w'+#.-]+")
# Words that name no part of a choice or its context.
_EMPTY = frozenset((
    "a", "an", "the", "my", "our", "your", "their", "in", "for", "on", "with", "when", "while", "during", "inside", "across",
    "at", "of", "to", "and", "or", "as",
))
# Leads of a choice; "Prefers X" and "use X" (an instruction: "Always use ruff ...") make the same choice.
_LIKINGS = ("Prefers ", "Likes ", "Loves ", "Enjoys ")
_USE_RE = re.compile(r"(?i)^(?:always\s+)?use\s+(?=\S)")
# A choice longer than this is a sentence, not a value another can replace.
MAX_CHOICE_WORDS = 4
_WORD_NUMBERS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
    "ten": "10", "twelve": "12",
}
# How a count is had: "having one reviewer" counts what "2 reviewers" does.
_HAVING_RE = re.compile(r"(?i)^(?:having|using|with|getting|keeping)\s+(?=\S)")
# Kinds of value that are no rivals of a named thing's: a port ("port 5432"), an address
# ("db.internal", "host:5432"), a count ("2 reviewers", "4-space indentation").
_PORT_RE = re.compile(r"(?i)^port\s+\d+$")
_HOST_RE = re.compile(r"(?i)^(?:https?://\S+|[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?|[a-z0-9.-]+:\d{2,5})$")
_COUNT_RE = re.compile(r"(?i)^(?:\d+(?:[.,]\d+)*|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b")


@dataclass(frozen=True)
class Choice:
    """A line read as a choice: its kind ("choice" for preferring or using, else its lead), what is
    chosen, and what for (the context's words, numbers apart)."""

    kind: str
    chosen: str
    context: frozenset[str]
    numbers: tuple[str, ...]


def choice(body: str) -> Choice | None:
    """``body`` (a line without its bullet) read as a choice, or None when it states none."""
    body = re.sub(r"(?i)^actually,?\s+", "", " ".join(body.split())).rstrip(".!")
    lead = next((lead for lead in _LIKINGS if body.lower().startswith(lead.lower())), None)
    used = _USE_RE.match(body)
    if lead is not None:
        kind, obj = ("choice" if lead == "Prefers " else lead.strip()), body[len(lead) :]
    elif used is not None:
        kind, obj = "choice", body[used.end() :]
    else:
        return None
    obj = choice_of(obj)
    parts = _CONTEXT_RE.split(obj, maxsplit=1)
    chosen, context = _HAVING_RE.sub("", parts[0]), parts[1] if len(parts) > 1 else ""
    if len(chosen.split()) > MAX_CHOICE_WORDS:  # (how a count is had is no word of it: "having one reviewer per PR")
        return None
    words = frozenset(w.lower() for w in _WORD_RE.findall(_NUMBER_RE.sub(" ", context)) if w.lower() not in _EMPTY)
    # Only the choice's own numbers: one in its context may name the context ("tabs in Python 2").
    numbers = tuple(_WORD_NUMBERS.get(n.lower(), n) for n in _NUMBER_RE.findall(chosen))
    return Choice(kind, chosen, words, numbers)


def value_kind(chosen: str) -> str:
    """What kind of value a choice is: a "port", an "address", a "count" of something, or a
    "thing" named (a product, a tool, a product at a version: "Postgres 16"). Values of two kinds
    are no rivals: a port for databases says nothing against the product for them."""
    chosen = " ".join(chosen.split())
    if _PORT_RE.match(chosen):
        return "port"
    if _HOST_RE.match(chosen):
        return "address"
    return "count" if _COUNT_RE.match(chosen) else "thing"


def _counted(chosen: str) -> str:
    """What a count counts, whatever the number and however many: "2 reviewers" and "one
    reviewer" count "# reviewer"."""
    words = _NUMBER_RE.sub("#", chosen).lower().split()
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words)


def _compatible(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two contexts are the same one: the same words, or one saying less of it ("in YAML
    files" and "in YAML config files"); a choice for no context is not one for any."""
    return a == b or (bool(a) and bool(b) and (a <= b or b <= a))


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text) if w.lower() not in _EMPTY}


def _other_choice(new: str, old: str) -> bool:
    """Whether ``new`` chooses another thing than ``old``: no word in common ("black", "ruff"), or
    another kind of the same thing ("light roast coffee", "dark roast coffee"); not one saying more
    or less of it ("pytest fixtures", "pytest"; "black coffee", "coffee")."""
    a, b = new.lower().split(), old.lower().split()
    return not (_words(new) & _words(old)) or (len(a) == len(b) and a[-1] == b[-1] and a != b)


@dataclass(frozen=True)
class Rivalry:
    """What a new line rules out among the stored preferences of its folder (``folder_fields``:
    the preference's path fields, its subject). ``said``: the new line's body; ``marked``: said as
    a correction; ``switched``: the old value of a switch ("ruff" for "from ruff to black")."""

    folder_fields: tuple[tuple[str, str], ...]
    said: str = ""
    marked: bool = False
    switched: str = ""

    def rules_out(self, body: str) -> bool:
        old = choice(body)
        if old is None:
            return False
        if self.switched:
            # what was switched from, or is no longer used, in its context if it names one ("poetry for packaging")
            gone = choice(f"Use {self.switched}")
            return (old.kind == "choice" and gone is not None and old.chosen.lower() == gone.chosen.lower()
                    and (not gone.context or _compatible(gone.context, old.context)))
        new = choice(self.said)
        if new is None or " ".join(body.split()).lower() == " ".join(self.said.split()).lower():
            return False
        if not _compatible(new.context, old.context) or value_kind(new.chosen) != value_kind(old.chosen):
            return False  # (a port is no rival of a product: "port 5432", "Postgres 16" for databases)
        if new.context != old.context and not self.marked:
            # One context saying more than the other ("scripts", "legacy scripts") may be its
            # exception, not the same thing: only a correction says the new one replaces it.
            return False
        if _counted(new.chosen) == _counted(old.chosen):
            # the same thing at another size or count, however liked: "4-space indentation" and
            # "2-space indentation", "one reviewer" and "2 reviewers"
            return new.numbers != old.numbers
        # Another thing chosen replaces the old only for the same purpose and as the same liking:
        # "Postgres for the backend" is no rival of "Redis for caching in the backend".
        return new.kind == old.kind and self.marked and bool(new.context) and new.context == old.context and _other_choice(new.chosen, old.chosen)

    def ending(self, line: str) -> str | list[dict[str, str]]:
        """The content that ends stored ``line``: "No longer prefers ..." for a liking, the removal of an instruction."""
        body = re.sub(r"^\s*[-*+]\s+", "", line).strip()
        if _USE_RE.match(body):
            return [{"replace": line.strip(), "with": ""}]
        return f"- No longer {body[:1].lower()}{body[1:]}"


def endings(rivalry: Rivalry, folder: str, names: list[str], read) -> list[tuple[str, str | list[dict[str, str]]]]:
    """(path, content ending it) for each stored line of the files ``names`` of ``folder`` that
    ``rivalry`` rules out; ``read(path)`` gives a file's text or None."""
    out: list[tuple[str, str | list[dict[str, str]]]] = []
    for name in names:
        path = f"{folder}/{name}" if folder else name
        text = read(path) if name.endswith(".md") and not name.startswith(".") else None
        if text is None:
            continue
        try:
            content = repaired_memory(text)[0]
        except InvalidInput:
            continue  # edited past recognition: left alone rather than failing the write
        out.extend((path, ending) for ending in ended(rivalry, content))
    return out


def ended(rivalry: Rivalry, content: str) -> list[str | list[dict[str, str]]]:
    """The content ending each line of ``content`` (a memory's text) that ``rivalry`` rules out."""
    bodies = ((line, re.sub(r"^\s*[-*+]\s+", "", line).strip()) for line in content.splitlines())
    return [rivalry.ending(line) for line, body in bodies if line.lstrip().startswith(("- ", "* ", "+ ")) and rivalry.rules_out(body)]
