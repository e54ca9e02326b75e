"""The tags that frame recalled text in an agent's prompt, and how stored text is kept from forging them.

What ov injects is stored text, and stored text is untrusted (a README from a cloned repository, a
web page). Around it are ov's own marks: the ``HEADER`` comment (``<!-- ov: … -->``), one
``<context …>`` element per entry, and the ``<ov-context>`` fence a hook puts around the block;
and around all of it the host's own wrappers, ``<system-reminder>`` (Claude Code) and
``<hook_context>``. A ``</system-reminder>`` in stored text would end the host's wrapper early, and
what follows would read as the host's own instruction, not as ov's data. So :func:`defuse` writes
every such mark in stored text with a backslash after its ``<``: ``<\\/context``, ``<\\ov-context``,
``<\\/system-reminder>``, ``<\\!-- ov:``. Nothing that reads the block as a tag, or ov's header,
takes those for one; a person or a model still reads the words.

Capture (:mod:`ov.hosts.transcript`) cuts the same fence and wrappers out of transcripts: one list.
"""

from __future__ import annotations

import re

from ov.regex import LazyPattern

ELEMENT_TAG = "context"  # one entry of a block (ov.retrieval.context.render_element)
FENCE_TAG = "ov-context"  # the block a hook injects (ov.hosts.recall writes it)
# What hosts wrap around a prompt and around what a hook adds to it.
HOST_WRAPPERS = ("hook_context", "system-reminder")

_NAMES = "|".join(re.escape(name) for name in (ELEMENT_TAG, FENCE_TAG, *HOST_WRAPPERS))
# A `<` (or `&lt;`, the spelling hosts echo a fence in, which capture reads as the fence too) where
# it could start one of those tags, opening or closing, in any case and with any spaces a reader
# forgives, but not a longer name (`<contextual>`); or where it starts a comment as ov's do.
_MARK_RE = LazyPattern(rf"(?:<|&lt;)(?=\s*/?\s*(?:{_NAMES})(?![\w-])|!--\s*ov\s*:)", re.IGNORECASE)


def defuse(text: str) -> str:
    """``text`` with every mark that could frame it (see the module docstring) written inert."""
    return _MARK_RE.sub(lambda match: match.group() + "\\", text)
