"""Counts and articles in the sentences ov prints: "1 hook", "2 hooks", "an OpenCode session"."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, plural unless the count is one (``plural`` where adding 's' is wrong)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def a(word: str) -> str:
    """``word`` after its indefinite article, by its first letter (good enough for host names)."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"
