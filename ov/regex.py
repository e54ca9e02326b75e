"""Regular expressions compiled when first used.

Compiling a pattern costs from a tenth of a millisecond to several (a class that reaches
into the supplementary Unicode planes); a module that compiles its patterns at import makes
every command that imports it pay for all of them. The redaction rules (~90 patterns, ~40 ms,
imported by every `ov session add` and by hooks on every agent turn) are the case in point:
most texts hold none of the hints that wake a rule, so most patterns are never needed.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LazyPattern"]


class LazyPattern:
    """A regular expression compiled the first time it is used, used like the
    ``re.Pattern`` it stands for (``search``, ``match``, ``sub``, ``groupindex``, ...)."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return getattr(compiled, name)
