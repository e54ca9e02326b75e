"""What `ov stat` shows of a memory beside its file's own times: its trailer's fields."""

from __future__ import annotations

from ov.errors import InvalidInput
from ov.store.store import Store
from ov.uri import VikingURI

# The trailer's fields `ov stat` shows of a memory: when it was made and last changed, and what it came from.
STAT_FIELDS = ("memory_type", "created_at", "updated_at", "sources")


def memory_fields(store: Store, uri: VikingURI) -> dict | None:
    """What ``ov stat`` and the MCP ``stat`` show of a memory beside the file's own times: its
    trailer's :data:`STAT_FIELDS` (a file's mtime is its checkout's; these are when the memory was
    written and corrected, and from which sessions). None for a file that is no memory (no
    ``memories`` folder above it, no trailer, not UTF-8 text)."""
    from ov.sessions.memory.files import parse_memory

    if "memories" not in uri.parts[:-1] or not uri.parts[-1].endswith(".md"):
        return None
    try:
        _, meta = parse_memory(store.path(uri).read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, InvalidInput):
        return None
    shown = {key: meta[key] for key in STAT_FIELDS if key in meta}
    return shown or None
