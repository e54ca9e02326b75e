"""Which ``.ov.bak`` is ov's own: a backup that holds nothing but the file an uninstall gives back
and ov's own entries goes with that uninstall; one that holds anything else stays.

ov keeps the file as it was before its first write (:func:`ov.hosts.receipts.apply`), and an
uninstall that gives that file back takes the backup away. Older ovs rewrote the backup at every
install: a re-install, or the MCP server joining the hooks in Gemini's settings.json, left a
backup holding ov's own hooks or server, which never equalled the file given back, so it stayed
for good, with ov's entries in it. Such a backup is recognised by taking ov's entries out of it
as an uninstall takes them out of the file (:func:`ov.hosts.hookentries.remove_ours`,
:func:`ov.hosts.ovcommand.is_our_server`), and comparing bytes.
"""

from __future__ import annotations

from dataclasses import replace

from ov.errors import InvalidInput
from ov.hosts.filechange import given_back, parse
from ov.hosts.hookentries import remove_ours
from ov.hosts.hostconfig import Spec
from ov.hosts.mcpentries import mcp_entry
from ov.hosts.ovcommand import is_our_server


def only_ours_added(spec_: Spec, backup: bytes, restored: bytes, receipt: dict) -> bool:
    """Whether ``backup`` is ``restored`` (the file the uninstall gives back, ``receipt`` the
    receipt it undid) with ov's own hook handlers and server added, and nothing else.

    A list or object that only ov's entries filled goes with them: whether ov made it cannot be
    told any more (an older ov's receipt of it is gone), and when the user had one the bytes
    differ and the backup stays. A file ov cannot read, or edits as TOML, keeps its backup."""
    if spec_.shape not in ("nested", "flat", "mcp-json"):
        return False
    hooks_shape = spec_ if spec_.kind == "hooks" else replace(spec_, shape="flat" if spec_.host == "cursor" else "nested")
    server, _entry = mcp_entry(spec_.host, [])
    try:
        doc = parse(spec_, backup)
        hooks = doc.get(("hooks",))
        containers = [("hooks", native) for native in (hooks if isinstance(hooks, dict) else {})] + [("hooks",), server[:-1]]
        filled = [path for path in containers if doc.get(path) not in (None, {}, [])]
        remove_ours(doc, hooks_shape)
        if is_our_server(doc.get(server)):
            doc.remove(server)
        for path in filled:  # deepest first: an event's list before `hooks`
            if doc.get(path) in ({}, []):
                doc.remove(path)
    except InvalidInput:
        return False
    return given_back(spec_, doc, receipt) == restored
