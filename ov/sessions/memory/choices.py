"""Preferences as choices: which stored preference lines a new one rules out, and which it leaves.

A choice rules out its rivals ("tabs" rules out "spaces") in the context it was made in only:
"Prefers tabs in Go code" and "Prefers spaces in Python" both stand, while "Prefers spaces"
ends "Prefers tabs" and "Prefers tabs over spaces". The probes built here are applied by
:func:`ov.sessions.memory.merge.patch_text` (its "supersede" op).
"""

from __future__ import annotations

import re

# "Prefers Go over Python" rules out Python, as "tabs" rules out "spaces" (see rivals).
# So does "4-space indentation, not 2-space": a choice said against the one it replaces.
_OVER_RE = re.compile(r"^(?P<x>.+?)(?:\s+(?:over|rather\s+than|instead\s+of)|,\s*(?:and\s+)?not)\s+(?P<y>.+)$", re.IGNORECASE)
# Choices that exclude each other: preferring one is no longer preferring the others (see rivals).
EXCLUSIVE = (
    ("tabs", "spaces"),
    ("dark mode", "light mode"),
    ("dark theme", "light theme"),
    ("single quotes", "double quotes"),
    ("vim", "neovim", "emacs", "helix", "vs code", "vscode", "sublime text", "nano", "zed"),
)

# What a choice of EXCLUSIVE is always for: said with it ("tabs for indentation"), it names no
# context of its own, so "use 4 spaces" ends "Use tabs for indentation" as it ends "Use tabs".
INHERENT_PURPOSE = {"tabs": ("for indentation", "for indenting", "to indent"), "spaces": ("for indentation", "for indenting", "to indent")}


def rivals(lead: str, obj: str) -> tuple[str, ...]:
    """The choices "Prefers X" rules out: ("spaces",) for "tabs" or "tabs over spaces"; () if X is no known choice.

    A choice made for a context rules out the others in that context only: "tabs in Go code"
    gives ("spaces in Go code",), which leaves "Prefers spaces in Python" standing (see
    :func:`choice_probes`).
    """
    if lead != "Prefers ":
        return ()
    said = " ".join(obj.split())
    # "2 spaces", "four spaces": a count of a choice is that choice, and rules out the same rivals.
    said = re.sub(r"(?i)^(?:\d+|two|three|four|eight)\s+(?=\S)", "", said)
    for choices in EXCLUSIVE:
        chosen = next((c for c in choices if re.match(re.escape(c) + r"(?:$|[\s,;])", said.lower())), None)
        if chosen is not None:
            others = "|".join(re.escape(c) for c in choices)
            context = re.sub(rf"(?i)^(?:\s+(?:over|rather\s+than|instead\s+of)|,\s*(?:and\s+)?not)\s+(?:{others})(?=$|[\s,;])", "", said[len(chosen) :])
            return tuple(c + context for c in choices if c != chosen)
    named = _OVER_RE.match(said)
    if named and len(named.group("y").split()) <= 3:
        return (named.group("y"),)  # "Go over Python": a stored "Prefers Python" no longer holds
    return ()


def choice_probes(line: str) -> tuple[str, ...]:
    """Probes for the stored lines stating the choice ``line`` states, and nothing more: "Prefers
    tabs" matches "Prefers tabs" and "Prefers tabs over spaces", not "Prefers tabs in Go code"."""
    return (f"{line}$", *(f"{line} {rival}" for rival in ("over", "rather than", "instead of")))


def ended_probes(line: str) -> tuple[str, ...]:
    """Probes for the stored lines a choice ruling out ``line`` ("Prefers unittest") ends: those of
    :func:`choice_probes`, and the line with what the choice was for ("Prefers unittest for
    running tests": what both are for), not with a context it was made in ("... for Go code")."""
    return (*choice_probes(line), f"{line} for ~")


def choice_of(obj: str) -> str:
    """What a preference chooses, without the choice it is made over: "tabs over spaces" -> "tabs"."""
    named = _OVER_RE.match(" ".join(obj.split()))
    return named.group("x") if named else obj


def opposed(leads: tuple[str, ...], obj: str) -> tuple[str, ...]:
    """Probes for the lines feeling the other way about ``obj``, one per lead: "Hates pytest" for
    "Prefers pytest" or "Prefers using pytest" (and so for "Prefers pytest for tests" too)."""
    bare = re.sub(r"(?i)^using\s+", "", obj)
    return tuple(lead + form for lead in leads for form in dict.fromkeys((obj, bare, f"using {bare}")))


# Leads of a liking whose line a restatement of the same choice does not repeat (see same_choice).
_LIKING = ("Prefers ", "Likes ", "Loves ", "Enjoys ")
_OVER_WORDS = ("over", "rather than", "instead of")


def same_choice(lead: str, obj: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """For a liking line (``lead`` "Prefers ", "Likes ", ...): probes of the stored lines that already
    state its choice, and of those that state it with less, which it replaces; ((), ()) for another lead.

    "Prefers tabs" and "Prefers using tabs" are already said by "Prefers tabs", "Prefers using
    tabs" and "Prefers tabs over spaces"; "Prefers tabs over spaces" by the same choice over the
    same thing in other words ("Prefers tabs rather than spaces"), and it replaces "Prefers tabs":
    an existing preference is extended, never stated twice. A choice in a context ("tabs in Go
    code") is another choice.
    """
    if lead not in _LIKING:
        return (), ()
    said = " ".join(obj.split())
    named = _OVER_RE.match(said)
    choice = re.sub(r"(?i)^using\s+", "", named.group("x") if named else said)
    forms = (choice, f"using {choice}")
    if named:
        other = named.group("y")
        return tuple(f"{lead}{form} {word} {other}$" for form in forms for word in _OVER_WORDS), tuple(f"{lead}{form}$" for form in forms)
    return tuple(probe for form in forms for probe in (f"{lead}{form}$", *(f"{lead}{form} {word}" for word in _OVER_WORDS))), ()
